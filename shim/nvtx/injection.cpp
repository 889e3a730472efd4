// NVTX's route for tools (docs/design.md, "NVTX ranges"): NVTX's loader, in every shared
// object that uses NVTX, finds NVTX_INJECTION64_PATH (the shim, injection_path.cpp),
// dlopens it and calls InitializeInjectionNvtx2 with its export table; the shim fills
// that object's CORE and CORE2 function tables with its own functions. Once per object
// that uses NVTX (the program, libtorch, NCCL each have theirs): each call fills only
// its caller's tables, so calls may come in any number, on any thread.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <utility>

#include <nvtx3/nvToolsExt.h>

#include "config/profile_config.hpp"
#include "records/range_table.hpp"
#include "shim/nvtx/range_messages.hpp"
#include "shim/nvtx/thread_ranges.hpp"
#include "shim/process/profiling_state.hpp"
#include "shim/process/secure_execution.hpp"

namespace computeprof::shim {
namespace {

using records::RangePayloadKind;

RangeAttributes attributes_of(const nvtxEventAttributes_t* a) {
  RangeAttributes r;
  if (a == nullptr) return r;
  const auto has = [&](std::size_t end) { return a->size >= end; };
  if (has(offsetof(nvtxEventAttributes_t, category) + sizeof a->category)) r.category = a->category;
  if (has(offsetof(nvtxEventAttributes_t, color) + sizeof a->color) && a->colorType == NVTX_COLOR_ARGB) {
    r.color = a->color;
    r.has_color = true;
  }
  if (has(offsetof(nvtxEventAttributes_t, payload) + sizeof a->payload)) {
    switch (a->payloadType) {
      case NVTX_PAYLOAD_TYPE_UNSIGNED_INT64: r.payload = RangePayloadKind::uint64; r.payload_bits = a->payload.ullValue; break;
      case NVTX_PAYLOAD_TYPE_INT64: r.payload = RangePayloadKind::int64; r.payload_bits = static_cast<std::uint64_t>(a->payload.llValue); break;
      case NVTX_PAYLOAD_TYPE_DOUBLE: r.payload = RangePayloadKind::float64; std::memcpy(&r.payload_bits, &a->payload.dValue, 8); break;
      case NVTX_PAYLOAD_TYPE_UNSIGNED_INT32: r.payload = RangePayloadKind::uint32; r.payload_bits = a->payload.uiValue; break;
      case NVTX_PAYLOAD_TYPE_INT32: r.payload = RangePayloadKind::int32; r.payload_bits = static_cast<std::uint32_t>(a->payload.iValue); break;
      case NVTX_PAYLOAD_TYPE_FLOAT: {
        r.payload = RangePayloadKind::float32;
        std::uint32_t bits;
        std::memcpy(&bits, &a->payload.fValue, 4);
        r.payload_bits = bits;
        break;
      }
      default: break;
    }
  }
  return r;
}

// CORE: the default domain.
void NVTX_API mark_ex(const nvtxEventAttributes_t* a) { mark(0, attributes_name(a), attributes_of(a)); }
void NVTX_API mark_a(const char* m) { mark(0, ascii_name(m), {}); }
void NVTX_API mark_w(const wchar_t* m) { mark(0, wide_name(m), {}); }
nvtxRangeId_t NVTX_API start_ex(const nvtxEventAttributes_t* a) { return start_range(0, attributes_name(a), attributes_of(a)); }
nvtxRangeId_t NVTX_API start_a(const char* m) { return start_range(0, ascii_name(m), {}); }
nvtxRangeId_t NVTX_API start_w(const wchar_t* m) { return start_range(0, wide_name(m), {}); }
void NVTX_API end(nvtxRangeId_t id) { end_range(id); }
int NVTX_API push_ex(const nvtxEventAttributes_t* a) { return push_range(0, attributes_name(a), attributes_of(a)); }
int NVTX_API push_a(const char* m) { return push_range(0, ascii_name(m), {}); }
int NVTX_API push_w(const wchar_t* m) { return push_range(0, wide_name(m), {}); }
int NVTX_API pop() { return pop_range(0); }
void NVTX_API name_category_a(std::uint32_t c, const char* n) { name_category(0, c, ascii_name(n)); }
void NVTX_API name_category_w(std::uint32_t c, const wchar_t* n) { name_category(0, c, wide_name(n)); }
void NVTX_API name_thread_a(std::uint32_t t, const char* n) { name_thread(t, ascii_name(n)); }
void NVTX_API name_thread_w(std::uint32_t t, const wchar_t* n) { name_thread(t, wide_name(n)); }

// CORE2: domains (NULL is the default domain).
void NVTX_API domain_mark_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) {
  mark(domain_of_handle(d), attributes_name(a), attributes_of(a));
}
nvtxRangeId_t NVTX_API domain_start_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) {
  return start_range(domain_of_handle(d), attributes_name(a), attributes_of(a));
}
void NVTX_API domain_end(nvtxDomainHandle_t, nvtxRangeId_t id) { end_range(id); }
int NVTX_API domain_push_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) {
  return push_range(domain_of_handle(d), attributes_name(a), attributes_of(a));
}
int NVTX_API domain_pop(nvtxDomainHandle_t d) { return pop_range(domain_of_handle(d)); }
void NVTX_API domain_name_category_a(nvtxDomainHandle_t d, std::uint32_t c, const char* n) {
  name_category(domain_of_handle(d), c, ascii_name(n));
}
void NVTX_API domain_name_category_w(nvtxDomainHandle_t d, std::uint32_t c, const wchar_t* n) {
  name_category(domain_of_handle(d), c, wide_name(n));
}
nvtxStringHandle_t NVTX_API register_string_a(nvtxDomainHandle_t, const char* s) { return string_handle(ascii_name(s)); }
nvtxStringHandle_t NVTX_API register_string_w(nvtxDomainHandle_t, const wchar_t* s) { return string_handle(wide_name(s)); }
nvtxDomainHandle_t NVTX_API domain_create_a(const char* n) { return domain_handle(create_domain(ascii_name(n))); }
nvtxDomainHandle_t NVTX_API domain_create_w(const wchar_t* n) { return domain_handle(create_domain(wide_name(n))); }
void NVTX_API domain_destroy(nvtxDomainHandle_t d) { destroy_domain(domain_of_handle(d)); }
void NVTX_API initialize(const void*) {}

template <typename Function>
NvtxFunctionPointer entry(Function* f) {
  return reinterpret_cast<NvtxFunctionPointer>(f);
}

// Fills the module's slots that NVTX's table has (an older NVTX has fewer).
void fill(const NvtxExportTableCallbacks& callbacks, NvtxCallbackModule module,
          std::initializer_list<std::pair<unsigned, NvtxFunctionPointer>> entries) {
  NvtxFunctionTable table = nullptr;
  unsigned size = 0;
  if (callbacks.GetModuleFunctionTable(module, &table, &size) == 0 || table == nullptr) return;
  for (const auto& [id, function] : entries) {
    if (id <= size && table[id] != nullptr) *table[id] = function;
  }
}

// The window's range, interned once, before the first range can open it.
void prepare_capture_range() {
  const config::CaptureRange& window = process_profile().cuda.settings.config.capture_range;
  if (!window.active()) return;
  auto& table = records::range_table();
  const std::string_view name(window.name);
  const std::string_view domain(window.domain);
  set_capture_range(table.intern_name(name.substr(0, records::kRangeNameLimit)),
                    table.intern_name(domain.substr(0, records::kRangeNameLimit)));
}

}  // namespace
}  // namespace computeprof::shim

extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_table) {
  using namespace computeprof::shim;
  if (get_table == nullptr || secure_execution()) return 0;
  // NVTX stays a no-op where CUDA is not profiled (NVTX_INJECTION64_PATH set by hand).
  if (!process_profile().cuda.settings.enabled) return 0;
  const auto* callbacks = static_cast<const NvtxExportTableCallbacks*>(get_table(NVTX_ETID_CALLBACKS));
  if (callbacks == nullptr || callbacks->struct_size < sizeof(NvtxExportTableCallbacks) ||
      callbacks->GetModuleFunctionTable == nullptr) {
    return 0;
  }
  static const bool window_prepared = (prepare_capture_range(), true);
  (void)window_prepared;
  fill(*callbacks, NVTX_CB_MODULE_CORE,
       {{NVTX_CBID_CORE_MarkEx, entry(mark_ex)},
        {NVTX_CBID_CORE_MarkA, entry(mark_a)},
        {NVTX_CBID_CORE_MarkW, entry(mark_w)},
        {NVTX_CBID_CORE_RangeStartEx, entry(start_ex)},
        {NVTX_CBID_CORE_RangeStartA, entry(start_a)},
        {NVTX_CBID_CORE_RangeStartW, entry(start_w)},
        {NVTX_CBID_CORE_RangeEnd, entry(end)},
        {NVTX_CBID_CORE_RangePushEx, entry(push_ex)},
        {NVTX_CBID_CORE_RangePushA, entry(push_a)},
        {NVTX_CBID_CORE_RangePushW, entry(push_w)},
        {NVTX_CBID_CORE_RangePop, entry(pop)},
        {NVTX_CBID_CORE_NameCategoryA, entry(name_category_a)},
        {NVTX_CBID_CORE_NameCategoryW, entry(name_category_w)},
        {NVTX_CBID_CORE_NameOsThreadA, entry(name_thread_a)},
        {NVTX_CBID_CORE_NameOsThreadW, entry(name_thread_w)}});
  fill(*callbacks, NVTX_CB_MODULE_CORE2,
       {{NVTX_CBID_CORE2_DomainMarkEx, entry(domain_mark_ex)},
        {NVTX_CBID_CORE2_DomainRangeStartEx, entry(domain_start_ex)},
        {NVTX_CBID_CORE2_DomainRangeEnd, entry(domain_end)},
        {NVTX_CBID_CORE2_DomainRangePushEx, entry(domain_push_ex)},
        {NVTX_CBID_CORE2_DomainRangePop, entry(domain_pop)},
        {NVTX_CBID_CORE2_DomainNameCategoryA, entry(domain_name_category_a)},
        {NVTX_CBID_CORE2_DomainNameCategoryW, entry(domain_name_category_w)},
        {NVTX_CBID_CORE2_DomainRegisterStringA, entry(register_string_a)},
        {NVTX_CBID_CORE2_DomainRegisterStringW, entry(register_string_w)},
        {NVTX_CBID_CORE2_DomainCreateA, entry(domain_create_a)},
        {NVTX_CBID_CORE2_DomainCreateW, entry(domain_create_w)},
        {NVTX_CBID_CORE2_DomainDestroy, entry(domain_destroy)},
        {NVTX_CBID_CORE2_Initialize, entry(initialize)}});
  return 1;
}
