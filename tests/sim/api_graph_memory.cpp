// Graph memory nodes. The sim's model: an allocation node's memory is allocated when the
// node is made, and its address (params->dptr) is the graph's for good: the sim never
// gives it to anything else, even once the graph is destroyed. A free node frees it when
// it runs; without one, cuMemFree or cuMemFreeAsync do. The allocation node allocates it
// again when it runs after such a free. Freed graph memory is given back at once, so
// cuDeviceGraphMemTrim has nothing to trim. Nodes run in the order they were added;
// their dependencies are only checked.
#include <cstdlib>
#include <optional>
#include <set>
#include <vector>

#include "sim.hpp"
#include "sim_api.hpp"

namespace sim {
struct GraphNode {
  Graph* graph = nullptr;
  // An allocation node's parameters as cuGraphMemAllocNodeGetParams gives them back,
  // their accessDescs pointing into `access`.
  std::optional<CUDA_MEM_ALLOC_NODE_PARAMS> allocation;
  std::vector<CUmemAccessDesc> access;
};
}  // namespace sim

using namespace sim;

namespace {

Allocation allocation_of(GraphMemory& m) {
  return {m.base, m.size, MemoryKind::device, m.context, m.device, Origin::graph, nullptr, &m};
}

// Where a new node may go, with the driver's lock held: a graph, after nodes of its own,
// each named once.
CUresult check_place(CUgraphNode* node, Graph* graph, const CUgraphNode* dependencies, size_t count) {
  if (!node || !driver().graphs.count(graph) || (count > 0 && !dependencies)) return CUDA_ERROR_INVALID_VALUE;
  std::set<GraphNode*> seen;
  for (size_t i = 0; i < count; ++i) {
    auto* d = reinterpret_cast<GraphNode*>(dependencies[i]);
    if (!driver().graph_nodes.count(d) || d->graph != graph || !seen.insert(d).second) return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

GraphNode* add_node(Graph* graph, Operation run) {
  auto* n = new GraphNode;
  n->graph = graph;
  driver().graph_nodes.insert(n);
  graph->operations.push_back(std::move(run));
  return n;
}

bool valid_pool_props(const CUmemPoolProps& props) {
  // Graph memory cannot be shared with other processes.
  return props.allocType == CU_MEM_ALLOCATION_TYPE_PINNED && props.handleTypes == CU_MEM_HANDLE_TYPE_NONE &&
         props.location.type == CU_MEM_LOCATION_TYPE_DEVICE && valid_device(props.location.id);
}

}  // namespace

SIM_API CUresult cuGraphAddMemAllocNode(CUgraphNode* node, CUgraph graph, const CUgraphNode* dependencies, size_t count,
                                        CUDA_MEM_ALLOC_NODE_PARAMS* params) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  if (!params || params->bytesize == 0 || !valid_pool_props(params->poolProps) ||
      (params->accessDescCount > 0 && !params->accessDescs)) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  Context* c = current_context();
  void* storage = new_storage(params->bytesize);
  if (!storage) return CUDA_ERROR_OUT_OF_MEMORY;
  auto* g = reinterpret_cast<Graph*>(graph);
  std::lock_guard lock(driver().mutex);
  if (CUresult r = check_place(node, g, dependencies, count); r != CUDA_SUCCESS) {
    std::free(storage);
    return r;
  }
  const auto base = reinterpret_cast<std::uintptr_t>(storage);
  GraphMemory* memory =
      &driver().graph_memory.emplace(base, GraphMemory{base, params->bytesize, params->poolProps.location.id, c})
           .first->second;
  driver().allocations[base] = allocation_of(*memory);
  GraphNode* n = add_node(g, [memory] {
    std::lock_guard lock(driver().mutex);
    if (memory->live) return;
    memory->live = true;
    driver().allocations[memory->base] = allocation_of(*memory);
  });
  n->access.assign(params->accessDescs, params->accessDescs + params->accessDescCount);
  params->dptr = base;
  n->allocation = *params;
  n->allocation->accessDescs = n->access.data();
  *node = reinterpret_cast<CUgraphNode>(n);
  return CUDA_SUCCESS;
}

// Only graph memory, and only once: then nothing else may free it.
SIM_API CUresult cuGraphAddMemFreeNode(CUgraphNode* node, CUgraph graph, const CUgraphNode* dependencies, size_t count,
                                       CUdeviceptr p) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  auto* g = reinterpret_cast<Graph*>(graph);
  std::lock_guard lock(driver().mutex);
  if (CUresult r = check_place(node, g, dependencies, count); r != CUDA_SUCCESS) return r;
  auto it = driver().graph_memory.find(p);
  if (it == driver().graph_memory.end() || it->second.has_free_node) return CUDA_ERROR_INVALID_VALUE;
  GraphMemory* memory = &it->second;
  memory->has_free_node = true;
  GraphNode* n = add_node(g, [memory] {
    std::lock_guard lock(driver().mutex);
    if (!memory->live) return;
    memory->live = false;
    driver().allocations.erase(memory->base);
  });
  *node = reinterpret_cast<CUgraphNode>(n);
  return CUDA_SUCCESS;
}

SIM_API CUresult cuGraphMemAllocNodeGetParams(CUgraphNode node, CUDA_MEM_ALLOC_NODE_PARAMS* params) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  if (!params) return CUDA_ERROR_INVALID_VALUE;
  auto* n = reinterpret_cast<GraphNode*>(node);
  std::lock_guard lock(driver().mutex);
  if (!driver().graph_nodes.count(n) || !n->allocation) return CUDA_ERROR_INVALID_VALUE;
  *params = *n->allocation;
  return CUDA_SUCCESS;
}

SIM_API CUresult cuDeviceGraphMemTrim(CUdevice device) {
  if (CUresult r = ready(); r != CUDA_SUCCESS) return r;
  return valid_device(device) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}
