// The computeprof report page: reads the data `computeprof report` put in the page
// (docs/format.md, "Report"), draws the timeline on a canvas and fills the tables, the
// memory and ranks sections and the analysis. No library, no network.
'use strict';

// What the page read and shows, for whoever inspects it (the browser test does).
const report = (window.cprofReport = { ready: false, error: null, view: null, hover: null, selected: null });

// ---- The page's data ----

function elementBytes(id) {
  const element = document.getElementById(id);
  if (!element) return null;
  const text = atob(element.textContent.trim());
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}

function elementJson(id) {
  const bytes = elementBytes(id);
  return bytes ? JSON.parse(new TextDecoder().decode(bytes)) : null;
}

async function inflate(bytes) {
  if (bytes.length === 0) return bytes;
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

// Reads `count` varints of docs/format.md's "Report" section (unsigned LEB128) from
// bytes[at] into `out`, as numbers (every value the page holds is below 2^53); returns
// where they end. One tight loop: the timeline's millions of varints are most of the
// page's start-up.
function readVarints(bytes, at, count, out) {
  const length = bytes.length;
  for (let i = 0; i < count; i++) {
    if (at >= length) throw new Error('the timeline data ends early');
    let b = bytes[at++];
    if (b < 0x80) {
      out[i] = b;
      continue;
    }
    let value = b & 0x7f;
    let scale = 128;
    do {
      if (at >= length) throw new Error('the timeline data ends early');
      b = bytes[at++];
      value += (b & 0x7f) * scale;
      scale *= 128;
    } while (b >= 0x80);
    out[i] = value;
  }
  return at;
}

// A zigzag-coded signed value.
const unzigzag = (v) => (v % 2 === 1 ? -(v + 1) / 2 : v / 2);

const KIND_NAMES = ['kernel', 'copy', 'memset', 'graph'];
const FIELDS = { operations: 6, calls: 5, ranges: 4, memory: 2 };

// Every track's items as typed arrays: start, end (ns from the timeline's origin), name,
// and the kind's own fields.
function decodeTimeline(description, bytes) {
  let at = 0;
  const tracks = [];
  for (const track of description.tracks) {
    const n = track.items;
    const k = FIELDS[track.kind];
    if (!k) throw new Error('a track of an unknown kind: ' + track.kind);
    const v = new Float64Array(n * k);
    at = readVarints(bytes, at, n * k, v);
    const t = { ...track, start: new Float64Array(n), end: new Float64Array(n), name: new Uint32Array(n) };
    let start = 0;
    if (track.kind === 'operations' || track.kind === 'calls') {
      const operations = track.kind === 'operations';
      t.correlation = new Float64Array(n);
      if (operations) {
        t.flags = new Uint8Array(n);
        t.extra = new Float64Array(n);
      } else {
        t.result = new Int32Array(n);
      }
      let correlation = 0;
      for (let i = 0, j = 0; i < n; i++, j += k) {
        start += v[j];
        t.start[i] = start;
        t.end[i] = start + v[j + 1];
        t.name[i] = v[j + 2];
        correlation += unzigzag(v[j + 3]);
        t.correlation[i] = correlation;
        if (operations) {
          t.flags[i] = v[j + 4];
          t.extra[i] = v[j + 5];
        } else {
          t.result[i] = unzigzag(v[j + 4]);
        }
      }
    } else if (track.kind === 'ranges') {
      t.depth = new Uint16Array(n);
      for (let i = 0, j = 0; i < n; i++, j += k) {
        start += v[j];
        t.start[i] = start;
        t.end[i] = start + v[j + 1];
        t.name[i] = v[j + 2];
        t.depth[i] = Math.min(v[j + 3], 65535);
      }
    } else {
      t.bytes = new Float64Array(n);
      let bytesInUse = 0;
      for (let i = 0, j = 0; i < n; i++, j += k) {
        start += v[j];
        bytesInUse += unzigzag(v[j + 1]);
        t.start[i] = t.end[i] = start;
        t.bytes[i] = bytesInUse;
      }
    }
    tracks.push(t);
  }
  if (at !== bytes.length) throw new Error('the timeline data is longer than its tracks');
  return tracks;
}

// ---- Levels of detail ----

// A track drawn at a coarse zoom: its items merged where the gap between them is at most
// the level's resolution, 16 ns * 4^k. Each level is built once, from the one below it.
// Levels finer than about a quarter of the items' mean spacing are not built: at such
// zooms few enough items are in view to draw them one by one.
const LEVEL_BASE_NS = 16;

function mergeSpans(start, end, count, resolution) {
  const n = start.length;
  const s = new Float64Array(n);
  const e = new Float64Array(n);
  const c = new Uint32Array(n);
  let m = -1;
  let last = -Infinity;
  for (let i = 0; i < n; i++) {
    if (m >= 0 && start[i] - last <= resolution) {
      if (end[i] > last) last = e[m] = end[i];
      c[m] += count[i];
    } else {
      m++;
      s[m] = start[i];
      last = e[m] = end[i];
      c[m] = count[i];
    }
  }
  return { start: s.slice(0, m + 1), end: e.slice(0, m + 1), count: c.slice(0, m + 1) };
}

function buildLevels(row) {
  row.levels = [];
  const n = row.start.length;
  if (n < 2) return;
  const spacing = (row.end[n - 1] - row.start[0]) / n;
  let k = 0;
  while (LEVEL_BASE_NS * 4 ** (k + 1) <= spacing / 4) k++;
  let level = { start: row.start, end: row.end, count: new Uint32Array(n).fill(1) };
  for (; k < 24 && level.start.length > 1; k++) {
    level = mergeSpans(level.start, level.end, level.count, LEVEL_BASE_NS * 4 ** k);
    level.resolution = LEVEL_BASE_NS * 4 ** k;
    row.levels.push(level);
  }
}

// endMax[i]: the latest end of items 0..i, so that the first item reaching a time is
// found by bisection even where items overlap.
function latestEnds(end) {
  const out = new Float64Array(end.length);
  let max = -Infinity;
  for (let i = 0; i < end.length; i++) out[i] = max = Math.max(max, end[i]);
  return out;
}

// The first index whose value is >= x in a sorted array.
function lowerBound(array, x) {
  let lo = 0;
  let hi = array.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (array[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// ---- Formatting ----

function formatDuration(ns) {
  if (ns === null || ns === undefined || Number.isNaN(ns)) return '-';
  const a = Math.abs(ns);
  if (a >= 1e9) return (ns / 1e9).toFixed(3) + ' s';
  if (a >= 1e6) return (ns / 1e6).toFixed(3) + ' ms';
  if (a >= 1e3) return (ns / 1e3).toFixed(3) + ' us';
  return Math.round(ns) + ' ns';
}

function formatBytes(bytes) {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = bytes;
  let u = 0;
  while (Math.abs(v) >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return (u === 0 ? v.toString() : v.toFixed(3)) + ' ' + units[u];
}

function element(tag, attributes, ...children) {
  const e = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes || {})) {
    if (key === 'class') e.className = value;
    else if (key.startsWith('on')) e.addEventListener(key.slice(2), value);
    else e.setAttribute(key, value);
  }
  for (const child of children) e.append(child instanceof Node ? child : String(child));
  return e;
}

// ---- Tables ----

// Column titles of the stats tables' keys; a key ending in _ns is a duration, in
// _percent a percentage.
const TITLES = {
  time_percent: 'Time(%)', time_ns: 'Time', calls: 'Calls', avg_ns: 'Avg', min_ns: 'Min', max_ns: 'Max', name: 'Name',
  errors: 'Errors', instances: 'Instances', gpu_time_ns: 'GPU time', device: 'Device', span_ns: 'Span', idle_ns: 'Idle',
  idle_percent: 'Idle(%)', gaps: 'Gaps', cause: 'Cause', cause_gaps: 'Cause gaps', detail: 'Detail', rank: 'Rank',
  files: 'Files', over_median_percent: 'vs median', calls_min: 'Calls min', calls_median: 'Calls median',
  calls_max: 'Calls max', time_min_ns: 'Time min', time_median_ns: 'Time median', time_max_ns: 'Time max', time_cv: 'CV',
  slowest_rank: 'Slowest rank', rank_time_ns: 'Rank GPU time', median_ns: 'Kernel median', difference_ns: 'Difference',
  share_percent: 'Time(%)', base_calls: 'Calls', new_calls: 'New calls', base_total_ns: 'Time', new_total_ns: 'New time',
  total_change_percent: 'Change', base_avg_ns: 'Avg', new_avg_ns: 'New avg', avg_change_percent: 'Avg change',
  verdict: 'Verdict',
};
const TABLE_TITLES = {
  gpu_activities: 'GPU activities: kernels, copies and memsets', api_calls: 'API calls', nvtx_ranges: 'NVTX ranges',
  gpu_idle: 'GPU idle', ranks: 'Ranks', gpu_activities_by_rank: 'GPU activities by rank',
  nvtx_ranges_by_rank: 'NVTX ranges by rank (GPU time)', stragglers: 'Stragglers', comparison: 'Comparison',
};

function cellText(key, value) {
  if (value === null) return '-';
  if (typeof value === 'string') return value;
  if (key.endsWith('_ns')) return formatDuration(value);
  if (key.endsWith('_percent')) return value.toFixed(2) + '%';
  if (key === 'time_cv') return (100 * value).toFixed(2) + '%';
  return String(value);
}

// A sortable table of one stats table's rows; each cell's exact value is its
// data-value (the text shows durations in units).
function statsTable(key, rows) {
  const box = element('div', { class: 'table-box' });
  box.append(element('h3', {}, TABLE_TITLES[key] || key));
  if (rows.length === 0) {
    box.append(element('p', { class: 'none' }, 'None.'));
    return box;
  }
  const columns = Object.keys(rows[0]);
  const table = element('table', { 'data-table': key });
  const head = element('tr');
  const body = element('tbody');
  const fill = (order) => {
    body.replaceChildren();
    for (const row of order) {
      const tr = element('tr');
      for (const c of columns) {
        const v = row[c];
        tr.append(element('td', { class: typeof v === 'string' ? 'text' : 'number', 'data-key': c,
          'data-value': v === null ? '' : String(v), title: v === null ? '' : String(v) }, cellText(c, v)));
      }
      body.append(tr);
    }
  };
  let sortedBy = null;
  let up = false;
  for (const c of columns) {
    const th = element('th', { 'data-key': c }, TITLES[c] || c);
    th.addEventListener('click', () => {
      up = sortedBy === c ? !up : typeof rows[0][c] === 'string';
      sortedBy = c;
      for (const other of head.children) other.className = '';
      th.className = up ? 'sorted-up' : 'sorted-down';
      const sign = up ? 1 : -1;
      fill([...rows].sort((a, b) => {
        const x = a[c];
        const y = b[c];
        if (x === y) return 0;
        if (x === null) return 1;
        if (y === null) return -1;
        return (x < y ? -1 : 1) * sign;
      }));
    });
    head.append(th);
  }
  table.append(element('thead', {}, head), body);
  fill(rows);
  box.append(table);
  return box;
}

function fillTables(section, tables) {
  for (const [key, rows] of Object.entries(tables)) section.append(statsTable(key, rows));
}

// ---- The timeline ----

const LABEL_WIDTH = 200;
const ROW_HEIGHT = 18;
const MEMORY_HEIGHT = 48;
const MAX_RANGE_ROWS = 8;
const PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#b07aa1', '#76b7b2', '#edc948', '#e15759', '#9c755f', '#ff9da7',
  '#86bcb6', '#8cd17d', '#499894', '#d37295', '#a0cbe8', '#ffbe7d', '#bab0ac'];

function nameColour(id) {
  return PALETTE[(id * 2654435761 >>> 0) % PALETTE.length];
}

// The rows drawn, top to bottom: a process's heading, its devices' streams, its
// threads' calls and NVTX ranges (a row per depth), its devices' memory.
function timelineRows(description, tracks) {
  const rows = [];
  description.processes.forEach((process, p) => {
    const label = process.rank !== null ? `rank ${process.rank}: ${process.program} (${process.pid})`
      : `${process.program} (${process.pid})`;
    rows.push({ kind: 'heading', label, height: ROW_HEIGHT, process: p });
    const mine = tracks.filter((t) => t.process === p);
    for (const t of mine.filter((x) => x.kind === 'operations')) {
      const device = process.devices.find((d) => d.device === t.device);
      rows.push({ kind: 'operations', track: t, label: `GPU ${t.device}${device && device.name ? ' ' + device.name : ''} stream ${t.stream}`,
        height: ROW_HEIGHT, start: t.start, end: t.end, process: p });
    }
    for (const t of mine.filter((x) => x.kind === 'calls')) {
      rows.push({ kind: 'calls', track: t, label: `thread ${t.thread} API calls`, height: ROW_HEIGHT,
        start: t.start, end: t.end, process: p });
      const ranges = mine.find((x) => x.kind === 'ranges' && x.thread === t.thread);
      if (ranges) rows.push(...rangeRows(ranges, p));
    }
    for (const t of mine.filter((x) => x.kind === 'ranges')) {
      if (!mine.some((x) => x.kind === 'calls' && x.thread === t.thread)) rows.push(...rangeRows(t, p));
    }
    for (const t of mine.filter((x) => x.kind === 'memory')) {
      let peak = 0;
      for (let i = 0; i < t.bytes.length; i++) peak = Math.max(peak, t.bytes[i]);
      rows.push({ kind: 'memory', track: t, label: `GPU ${t.device} memory (peak ${formatBytes(peak)})`,
        height: MEMORY_HEIGHT, peak, process: p });
    }
  });
  for (const row of rows) {
    if (row.start) {
      row.endMax = latestEnds(row.end);
      buildLevels(row);
    }
  }
  return rows;
}

// A thread's NVTX ranges, one row per depth (the deepest rows together in the last).
function rangeRows(track, process) {
  const depths = Math.min(MAX_RANGE_ROWS, track.depth.reduce((m, d) => Math.max(m, d + 1), 0));
  const rows = [];
  for (let d = 0; d < depths; d++) {
    const indices = [];
    for (let i = 0; i < track.depth.length; i++) {
      if (Math.min(track.depth[i], MAX_RANGE_ROWS - 1) === d) indices.push(i);
    }
    const index = Uint32Array.from(indices);
    rows.push({ kind: 'ranges', track, index, label: `thread ${track.thread} NVTX${depths > 1 ? ' ' + d : ''}`,
      height: ROW_HEIGHT, process, start: Float64Array.from(index, (i) => track.start[i]),
      end: Float64Array.from(index, (i) => track.end[i]) });
  }
  return rows;
}

class Timeline {
  constructor(canvas, tooltip, details, description, tracks) {
    this.canvas = canvas;
    this.tooltip = tooltip;
    this.details = details;
    this.description = description;
    this.names = description.names;
    this.rows = timelineRows(description, tracks);
    let first = Infinity;
    let last = -Infinity;
    for (const t of tracks) {
      if (t.start.length === 0) continue;
      first = Math.min(first, t.start[0]);
      for (let i = 0; i < t.end.length; i++) if (t.end[i] > last) last = t.end[i];
    }
    if (first === Infinity) {
      first = 0;
      last = 1;
    }
    this.first = first;
    this.last = Math.max(last, first + 1);
    this.height = this.rows.reduce((h, r) => h + r.height, 0) + 24;
    this.view = { t0: this.first, t1: this.last };
    this.selected = null;
    this.flows = null;
    this.pending = false;
    this.resize();
    this.listen();
  }

  resize() {
    const ratio = window.devicePixelRatio || 1;
    this.width = Math.max(400, this.canvas.parentElement.clientWidth);
    this.canvas.width = Math.round(this.width * ratio);
    this.canvas.height = Math.round(this.height * ratio);
    this.canvas.style.height = this.height + 'px';
    this.context = this.canvas.getContext('2d');
    this.context.setTransform(ratio, 0, 0, ratio, 0, 0);
    this.draw();
  }

  plotWidth() { return this.width - LABEL_WIDTH; }
  nsPerPixel() { return (this.view.t1 - this.view.t0) / this.plotWidth(); }
  x(t) { return LABEL_WIDTH + ((t - this.view.t0) / (this.view.t1 - this.view.t0)) * this.plotWidth(); }
  time(x) { return this.view.t0 + ((x - LABEL_WIDTH) / this.plotWidth()) * (this.view.t1 - this.view.t0); }

  setView(t0, t1) {
    const span = this.last - this.first;
    let width = Math.min(Math.max(t1 - t0, 100), span * 1.2 + 100);
    let start = Math.max(this.first - span * 0.1, Math.min(t0, this.last + span * 0.1 - width));
    this.view = { t0: start, t1: start + width };
    report.view = { ...this.view };
    this.requestDraw();
  }
  zoom(factor, atX) {
    const t = this.time(atX);
    this.setView(t - (t - this.view.t0) * factor, t + (this.view.t1 - t) * factor);
  }
  pan(pixels) {
    const dt = pixels * this.nsPerPixel();
    this.setView(this.view.t0 + dt, this.view.t1 + dt);
  }

  requestDraw() {
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => {
      this.pending = false;
      this.draw();
    });
  }

  draw() {
    const c = this.context;
    c.clearRect(0, 0, this.width, this.height);
    c.font = '11px system-ui, sans-serif';
    c.textBaseline = 'middle';
    this.drawAxis(c);
    let y = 24;
    for (const row of this.rows) {
      row.y = y;
      if (row.kind === 'heading') {
        c.fillStyle = '#eef1f6';
        c.fillRect(0, y, this.width, row.height);
        c.fillStyle = '#1d2330';
        c.font = 'bold 11px system-ui, sans-serif';
        c.fillText(row.label, 4, y + row.height / 2);
        c.font = '11px system-ui, sans-serif';
      } else {
        c.save();
        c.beginPath();
        c.rect(LABEL_WIDTH, y, this.plotWidth(), row.height);
        c.clip();
        if (row.kind === 'memory') this.drawMemory(c, row, y);
        else this.drawItems(c, row, y);
        c.restore();
        c.fillStyle = '#5b6475';
        c.fillText(row.label.length > 34 ? row.label.slice(0, 33) + '…' : row.label, 4, y + row.height / 2);
      }
      c.strokeStyle = '#eceef2';
      c.beginPath();
      c.moveTo(0, y + row.height - 0.5);
      c.lineTo(this.width, y + row.height - 0.5);
      c.stroke();
      y += row.height;
    }
    this.drawFlow(c);
  }

  drawAxis(c) {
    c.fillStyle = '#fafbfc';
    c.fillRect(0, 0, this.width, 22);
    const span = this.view.t1 - this.view.t0;
    const step = 10 ** Math.floor(Math.log10(span / 6));
    const tick = [1, 2, 5, 10].map((m) => m * step).find((s) => span / s <= 10) || step * 10;
    c.fillStyle = '#5b6475';
    c.strokeStyle = '#d8dce4';
    for (let t = Math.ceil(this.view.t0 / tick) * tick; t <= this.view.t1; t += tick) {
      const x = this.x(t);
      c.beginPath();
      c.moveTo(x, 14);
      c.lineTo(x, 22);
      c.stroke();
      c.fillText(formatDuration(t), x + 2, 8);
    }
  }

  // Items one by one where few are in view, else the level whose resolution is about a
  // pixel, its merged spans in one colour.
  drawItems(c, row, y) {
    const t0 = this.view.t0;
    const t1 = this.view.t1;
    const from = lowerBound(row.endMax, t0);
    const to = lowerBound(row.start, t1);
    const top = y + 2;
    const h = row.height - 4;
    const perPixel = this.nsPerPixel();
    if (to - from <= this.plotWidth() * 2) {
      for (let i = from; i < to; i++) {
        const x0 = this.x(row.start[i]);
        const w = Math.max(1, this.x(row.end[i]) - x0);
        c.fillStyle = nameColour(this.nameOf(row, i));
        c.fillRect(x0, top, w, h);
        if (w > 40) {
          c.fillStyle = '#fff';
          c.fillText(this.names[this.nameOf(row, i)].slice(0, Math.floor(w / 6)), x0 + 2, y + row.height / 2);
        }
      }
      return;
    }
    let level = row.levels[0];
    for (const l of row.levels) if (l.resolution <= perPixel) level = l;
    const lf = Math.max(0, lowerBound(level.start, t0) - 1);
    const lt = lowerBound(level.start, t1);
    c.fillStyle = row.kind === 'operations' ? '#4e79a7' : row.kind === 'calls' ? '#9c755f' : '#59a14f';
    for (let i = lf; i < lt; i++) {
      const x0 = this.x(level.start[i]);
      c.fillRect(x0, top, Math.max(1, this.x(level.end[i]) - x0), h);
    }
  }

  drawMemory(c, row, y) {
    const t = row.track;
    if (t.start.length === 0 || row.peak === 0) return;
    const bottom = y + row.height - 2;
    const scale = (row.height - 6) / row.peak;
    const from = Math.max(0, lowerBound(t.start, this.view.t0) - 1);
    const to = Math.min(t.start.length, lowerBound(t.start, this.view.t1) + 1);
    c.strokeStyle = '#e15759';
    c.fillStyle = 'rgba(225, 87, 89, 0.25)';
    c.beginPath();
    c.moveTo(this.x(t.start[from]), bottom);
    let previousY = bottom;
    for (let i = from; i < to; i++) {
      const x = this.x(t.start[i]);
      c.lineTo(x, previousY);
      previousY = bottom - t.bytes[i] * scale;
      c.lineTo(x, previousY);
    }
    c.lineTo(this.x(this.view.t1), previousY);
    c.lineTo(this.x(this.view.t1), bottom);
    c.closePath();
    c.fill();
    c.stroke();
  }

  nameOf(row, i) { return row.index ? row.track.name[row.index[i]] : row.track.name[i]; }
  trackIndex(row, i) { return row.index ? row.index[i] : i; }

  // The row and item under a point; a merged span where the view shows levels.
  hit(x, y) {
    const row = this.rows.find((r) => r.y !== undefined && y >= r.y && y < r.y + r.height);
    if (!row || x < LABEL_WIDTH) return null;
    if (row.kind === 'memory') {
      const t = row.track;
      const i = lowerBound(t.start, this.time(x) + 1) - 1;
      return i >= 0 ? { row, memory: i } : null;
    }
    if (!row.start) return null;
    const slack = 2 * this.nsPerPixel();
    const time = this.time(x);
    const from = lowerBound(row.endMax, time - slack);
    const to = lowerBound(row.start, time + slack);
    if (to - from > this.plotWidth() * 2 || to - from <= 0) {
      if (to - from <= 0) return null;
      let level = row.levels[0];
      for (const l of row.levels) if (l.resolution <= this.nsPerPixel()) level = l;
      const j = lowerBound(level.start, time + slack) - 1;
      if (j < 0 || level.end[j] < time - slack) return null;
      return { row, merged: j, level };
    }
    // The shortest item there: a call nested in a longer one, a kernel between copies.
    let best = -1;
    for (let i = from; i < to; i++) {
      if (row.end[i] + slack < time || row.start[i] - slack > time) continue;
      if (best < 0 || row.end[i] - row.start[i] < row.end[best] - row.start[best]) best = i;
    }
    return best < 0 ? null : { row, item: best };
  }

  describe(hit) {
    const row = hit.row;
    if (hit.memory !== undefined) {
      const t = row.track;
      return `GPU ${t.device} memory in use\n${formatBytes(t.bytes[hit.memory])} from ${formatDuration(t.start[hit.memory])}`;
    }
    if (hit.merged !== undefined) {
      const l = hit.level;
      return `${l.count[hit.merged]} items, ${formatDuration(l.start[hit.merged])} to ${formatDuration(l.end[hit.merged])}\nzoom in to see them one by one`;
    }
    const i = this.trackIndex(row, hit.item);
    const t = row.track;
    const lines = [this.names[t.name[i]], `start ${formatDuration(t.start[i])}, duration ${formatDuration(t.end[i] - t.start[i])}`];
    if (row.kind === 'operations') {
      const kind = t.flags[i] & 3;
      lines.push(`${KIND_NAMES[kind]} on GPU ${t.device} stream ${t.stream}, correlation id ${t.correlation[i]}`);
      if (kind === 0 && t.extra[i] > 0) lines.push(`occupancy ${((t.extra[i] - 1) / 1000).toFixed(3)}`);
      if (kind === 1 || kind === 2) lines.push(`${formatBytes(t.extra[i])}${t.flags[i] & 4 ? ', pageable host memory' : ''}`);
    } else if (row.kind === 'calls') {
      lines.push(`thread ${t.thread}, correlation id ${t.correlation[i]}, returned ${t.result[i]}`);
    } else {
      lines.push(`NVTX range on thread ${t.thread}, depth ${t.depth[i]}`);
    }
    return lines.join('\n');
  }

  // Calls and operations by process and correlation id, made on the first selection.
  counterpart(row, i) {
    if (!this.flows) {
      this.flows = new Map();
      for (const r of this.rows) {
        if (r.kind !== 'operations' && r.kind !== 'calls') continue;
        for (let k = 0; k < r.start.length; k++) {
          const id = r.track.correlation[k];
          if (id === 0) continue;
          const key = `${r.process}:${r.kind}:${id}`;
          if (!this.flows.has(key)) this.flows.set(key, { row: r, item: k });
        }
      }
    }
    const id = row.track.correlation[i];
    if (!id) return null;
    return this.flows.get(`${row.process}:${row.kind === 'calls' ? 'operations' : 'calls'}:${id}`) || null;
  }

  select(hit) {
    if (!hit || hit.item === undefined) {
      this.selected = null;
      report.selected = null;
      this.details.textContent = hit ? this.describe(hit) : '';
      this.requestDraw();
      return;
    }
    const other = hit.row.kind === 'ranges' ? null : this.counterpart(hit.row, hit.item);
    this.selected = { row: hit.row, item: hit.item, other };
    report.selected = { name: this.names[this.nameOf(hit.row, hit.item)], kind: hit.row.kind, flow: !!other };
    let text = this.describe(hit);
    if (other) text += `\n\n${other.row.kind === 'calls' ? 'made by the call' : 'made the operation'}:\n` + this.describe(other);
    this.details.textContent = text;
    this.requestDraw();
  }

  // The selected item outlined, and an arrow from the call to its operation.
  drawFlow(c) {
    if (!this.selected) return;
    const box = (s) => ({ x0: this.x(s.row.start[s.item]), x1: this.x(s.row.end[s.item]), y: s.row.y });
    const a = box(this.selected);
    c.strokeStyle = '#000';
    c.lineWidth = 2;
    c.strokeRect(a.x0, a.y + 1, Math.max(2, a.x1 - a.x0), this.selected.row.height - 2);
    if (this.selected.other) {
      const b = box(this.selected.other);
      c.strokeRect(b.x0, b.y + 1, Math.max(2, b.x1 - b.x0), this.selected.other.row.height - 2);
      const call = this.selected.row.kind === 'calls' ? a : b;
      const op = this.selected.row.kind === 'calls' ? b : a;
      const h = this.selected.row.height / 2;
      c.strokeStyle = '#e15759';
      c.beginPath();
      c.moveTo(call.x0, call.y + h);
      c.lineTo(op.x0, op.y + h);
      c.stroke();
      c.beginPath();
      c.arc(op.x0, op.y + h, 3, 0, 2 * Math.PI);
      c.fillStyle = '#e15759';
      c.fill();
    }
    c.lineWidth = 1;
  }

  showTooltip(event) {
    const rect = this.canvas.getBoundingClientRect();
    const x = event.clientX - rect.left;
    const y = event.clientY - rect.top;
    const hit = this.hit(x, y);
    if (!hit) {
      this.tooltip.hidden = true;
      report.hover = null;
      return;
    }
    this.tooltip.textContent = this.describe(hit);
    this.tooltip.hidden = false;
    this.tooltip.style.left = Math.min(x + 12, this.width - 300) + 'px';
    this.tooltip.style.top = y + 14 + 'px';
    report.hover = { row: hit.row.label, text: this.tooltip.textContent };
  }

  listen() {
    const box = this.canvas.parentElement;
    let drag = null;
    this.canvas.addEventListener('wheel', (event) => {
      event.preventDefault();
      const rect = this.canvas.getBoundingClientRect();
      this.zoom(event.deltaY > 0 ? 1.25 : 0.8, Math.max(LABEL_WIDTH, event.clientX - rect.left));
    }, { passive: false });
    this.canvas.addEventListener('mousedown', (event) => {
      drag = { x: event.clientX, moved: false };
      box.focus();
    });
    window.addEventListener('mousemove', (event) => {
      if (drag) {
        const dx = event.clientX - drag.x;
        if (dx !== 0) {
          drag.moved = true;
          drag.x = event.clientX;
          this.pan(-dx);
        }
      }
    });
    window.addEventListener('mouseup', (event) => {
      if (drag && !drag.moved) {
        const rect = this.canvas.getBoundingClientRect();
        this.select(this.hit(event.clientX - rect.left, event.clientY - rect.top));
      }
      drag = null;
    });
    this.canvas.addEventListener('mousemove', (event) => this.showTooltip(event));
    this.canvas.addEventListener('mouseleave', () => {
      this.tooltip.hidden = true;
      report.hover = null;
    });
    box.addEventListener('keydown', (event) => {
      const middle = LABEL_WIDTH + this.plotWidth() / 2;
      if (event.key === '+' || event.key === '=') this.zoom(0.8, middle);
      else if (event.key === '-' || event.key === '_') this.zoom(1.25, middle);
      else if (event.key === 'ArrowLeft') this.pan(-this.plotWidth() / 10);
      else if (event.key === 'ArrowRight') this.pan(this.plotWidth() / 10);
      else if (event.key === '0') this.setView(this.first, this.last);
      else return;
      event.preventDefault();
    });
    window.addEventListener('resize', () => this.resize());
  }

  // Shows [t0, t1] with a margin, and scrolls the timeline into view.
  show(t0, t1) {
    const margin = Math.max((t1 - t0) * 0.25, 1000);
    this.setView(t0 - margin, t1 + margin);
    this.canvas.scrollIntoView({ block: 'nearest' });
  }
}

// ---- The analysis ----

// The union of a track's items (of the kinds given, all where null) as sorted disjoint
// intervals: one pass, the items being sorted by start.
function trackUnion(t, kinds) {
  const n = t.start.length;
  let mask = 15;
  if (kinds) mask = kinds.reduce((m, k) => m | (1 << k), 0);
  const start = new Float64Array(n);
  const end = new Float64Array(n);
  let m = -1;
  for (let i = 0; i < n; i++) {
    if (t.flags && !(mask & (1 << (t.flags[i] & 3)))) continue;
    if (m >= 0 && t.start[i] <= end[m]) {
      if (t.end[i] > end[m]) end[m] = t.end[i];
    } else {
      m++;
      start[m] = t.start[i];
      end[m] = t.end[i];
    }
  }
  return { start: start.subarray(0, m + 1), end: end.subarray(0, m + 1) };
}

// Two unions as one.
function mergeUnions(a, b) {
  const n = a.start.length + b.start.length;
  const start = new Float64Array(n);
  const end = new Float64Array(n);
  let i = 0;
  let j = 0;
  let m = -1;
  while (i < a.start.length || j < b.start.length) {
    const fromA = j >= b.start.length || (i < a.start.length && a.start[i] <= b.start[j]);
    const s = fromA ? a.start[i] : b.start[j];
    const e = fromA ? a.end[i++] : b.end[j++];
    if (m >= 0 && s <= end[m]) {
      if (e > end[m]) end[m] = e;
    } else {
      m++;
      start[m] = s;
      end[m] = e;
    }
  }
  return { start: start.subarray(0, m + 1), end: end.subarray(0, m + 1) };
}

function union(tracks, kinds) {
  let out = { start: new Float64Array(0), end: new Float64Array(0) };
  for (const t of tracks) out = mergeUnions(out, trackUnion(t, kinds));
  return out;
}

function totalOf(u) {
  let total = 0;
  for (let i = 0; i < u.start.length; i++) total += u.end[i] - u.start[i];
  return total;
}

function overlapOf(a, b) {
  let i = 0;
  let j = 0;
  let total = 0;
  while (i < a.start.length && j < b.start.length) {
    const lo = Math.max(a.start[i], b.start[j]);
    const hi = Math.min(a.end[i], b.end[j]);
    if (hi > lo) total += hi - lo;
    if (a.end[i] < b.end[j]) i++;
    else j++;
  }
  return total;
}

const pct = (part, whole) => (whole > 0 ? (100 * part) / whole : 0).toFixed(1) + '%';

// Findings, most GPU time at stake first. Each: title, evidence lines, advice, and
// where to look in the timeline.
function analyse(data, tracks) {
  const findings = [];
  const add = (severity, title, evidence, advice, where) => findings.push({ severity, title, evidence, advice, where });
  const operations = tracks.filter((t) => t.kind === 'operations');
  const devices = new Map();
  for (const t of operations) {
    const key = `${t.process}:${t.device}`;
    if (!devices.has(key)) devices.set(key, []);
    devices.get(key).push(t);
  }
  const processLabel = (p) => (data.description.processes.length > 1 ? ` of ${data.description.processes[p].program} (${data.description.processes[p].pid})` : '');

  // GPU idle and its causes, from the stats' idle table.
  const idle = data.stats.gpu_idle || [];
  const idleDevices = new Map();
  for (const row of idle) {
    if (!idleDevices.has(row.device)) idleDevices.set(row.device, { row, causes: [] });
    if (row.cause) idleDevices.get(row.device).causes.push(row);
  }
  for (const [device, { row, causes }] of idleDevices) {
    if (row.idle_percent < 10) continue;
    // The longest gap on the device, where the timeline has it.
    let where = null;
    for (const [key, list] of devices) {
      if (Number(key.split(':')[1]) !== device) continue;
      const busy = union(list);
      let longest = 0;
      for (let i = 1; i < busy.start.length; i++) {
        if (busy.start[i] - busy.end[i - 1] > longest) {
          longest = busy.start[i] - busy.end[i - 1];
          where = [busy.end[i - 1], busy.start[i]];
        }
      }
    }
    add(row.idle_percent >= 30 ? 'high' : 'medium', `GPU ${device} is idle ${row.idle_percent.toFixed(2)}% of its span`,
      [`idle ${formatDuration(row.idle_ns)} of ${formatDuration(row.span_ns)} in ${row.gaps} gaps`,
        ...causes.map((c) => `${c.cause}: ${formatDuration(c.time_ns)} (${c.time_percent.toFixed(2)}% of the idle time) in ${c.cause_gaps} gaps${c.detail ? ': ' + c.detail : ''}`)],
      'Look at what the host does in the longest gaps: synchronizations that wait for work already done, copies from pageable memory, allocations inside the loop and launches issued too slowly all leave the GPU waiting. Overlap host work with GPU work (streams, asynchronous copies) and move allocations out of loops.',
      where);
  }

  // Copies from pageable memory; small copies; no overlap of copies and kernels;
  // streams that never run kernels at the same time; launch-bound streams.
  let pageable = 0;
  let pageableNs = 0;
  let pageableBytes = 0;
  let pageableFirst = null;
  let small = 0;
  let smallNs = 0;
  let copies = 0;
  let copyNs = 0;
  let smallFirst = null;
  const SMALL_COPY_BYTES = 64 * 1024;
  for (const t of operations) {
    for (let i = 0; i < t.start.length; i++) {
      if ((t.flags[i] & 3) !== 1) continue;
      const ns = t.end[i] - t.start[i];
      copies++;
      copyNs += ns;
      if (t.flags[i] & 4) {
        pageable++;
        pageableNs += ns;
        pageableBytes += t.extra[i];
        if (!pageableFirst) pageableFirst = [t.start[i], t.end[i]];
      }
      if (t.extra[i] > 0 && t.extra[i] < SMALL_COPY_BYTES) {
        small++;
        smallNs += ns;
        if (!smallFirst) smallFirst = [t.start[i], t.end[i]];
      }
    }
  }
  if (pageable > 0) {
    add('medium', `${pageable} copies from pageable host memory`,
      [`${formatDuration(pageableNs)} of copy time (${pct(pageableNs, copyNs)} of all copies), ${formatBytes(pageableBytes)}`],
      'A copy from pageable memory is staged through a driver buffer and cannot overlap kernels. Allocate the host buffers with cudaMallocHost or pin them with cudaHostRegister.',
      pageableFirst);
  }
  if (small >= 10 && small * 2 >= copies) {
    add('medium', `${small} small copies (under 64 KiB each)`,
      [`${small} of ${copies} copies, ${formatDuration(smallNs)} (${pct(smallNs, copyNs)} of the copy time)`],
      'Each copy has a fixed cost of several microseconds: gather small transfers into one buffer and copy it at once.',
      smallFirst);
  }
  for (const [key, list] of devices) {
    const [p, device] = key.split(':').map(Number);
    const kernelSpans = union(list, [0]);
    const copySpans = union(list, [1]);
    const kernelNs = totalOf(kernelSpans);
    const copySpanNs = totalOf(copySpans);
    if (kernelNs > 0 && copySpanNs > 0 && overlapOf(kernelSpans, copySpans) === 0 && copySpanNs * 20 >= kernelNs) {
      add('medium', `GPU ${device}${processLabel(p)}: copies never overlap kernels`,
        [`${formatDuration(copySpanNs)} of copies and ${formatDuration(kernelNs)} of kernels, 0 ns together`],
        'Issue copies with cudaMemcpyAsync from pinned memory in a stream other than the kernels\' so that the copy engines work while the kernels run.',
        [copySpans.start[0], copySpans.end[0]]);
    }
    const kernelStreams = list.filter((t) => { for (let i = 0; i < t.flags.length; i++) if ((t.flags[i] & 3) === 0) return true; return false; });
    if (kernelStreams.length >= 2) {
      const spans = kernelStreams.map((t) => union([t], [0]));
      let together = 0;
      for (let a = 0; a < spans.length; a++) for (let b = a + 1; b < spans.length; b++) together += overlapOf(spans[a], spans[b]);
      if (together === 0) {
        add('low', `GPU ${device}${processLabel(p)}: kernels of ${kernelStreams.length} streams never run at the same time`,
          [`streams ${kernelStreams.map((t) => t.stream).join(', ')}`],
          'Work in several streams is serialized: look for synchronizations between them (the default stream, cudaDeviceSynchronize, events), or kernels that fill the GPU alone.',
          spans[0].start.length ? [spans[0].start[0], spans[0].end[0]] : null);
      }
    }
    for (const t of list) {
      let kernels = 0;
      let bound = 0;
      let previousEnd = null;
      let where = null;
      const gaps = [];
      for (let i = 0; i < t.start.length; i++) {
        if ((t.flags[i] & 3) !== 0) continue;
        kernels++;
        if (previousEnd !== null) {
          const gap = t.start[i] - previousEnd;
          if (gap > t.end[i] - t.start[i]) {
            bound++;
            gaps.push(gap);
            if (!where) where = [previousEnd, t.end[i]];
          }
        }
        previousEnd = t.end[i];
      }
      if (kernels >= 20 && bound * 2 >= kernels) {
        gaps.sort((a, b) => a - b);
        add('medium', `GPU ${device}${processLabel(p)} stream ${t.stream}: launch-bound, kernels shorter than the gaps between them`,
          [`${bound} of ${kernels} kernels are shorter than the gap before them; median such gap ${formatDuration(gaps[gaps.length >> 1])}`],
          'The GPU waits for launches: fuse small kernels, give each more work, or capture the loop in a CUDA graph and launch it once.',
          where);
      }
    }
  }

  // Low occupancy: kernels with at least 1% of the GPU time that keep less than half of
  // the warps busy.
  // Per kernel name (typed arrays by name index: a Map per item would cost more than
  // the rest of the analysis).
  const names = data.description.names.length;
  const kernelNs = new Float64Array(names);
  const occupancySum = new Float64Array(names);
  const launches = new Float64Array(names);
  const first = new Float64Array(names).fill(-1);
  let kernelTotal = 0;
  for (const t of operations) {
    for (let i = 0; i < t.start.length; i++) {
      if ((t.flags[i] & 3) !== 0) continue;
      const ns = t.end[i] - t.start[i];
      kernelTotal += ns;
      if (t.extra[i] === 0) continue;
      const name = t.name[i];
      kernelNs[name] += ns;
      occupancySum[name] += (t.extra[i] - 1) / 1000;
      launches[name]++;
      if (first[name] < 0 || t.start[i] < first[name]) first[name] = t.start[i];
    }
  }
  for (let name = 0; name < names; name++) {
    if (launches[name] === 0) continue;
    const occupancy = occupancySum[name] / launches[name];
    if (occupancy < 0.5 && kernelNs[name] * 100 >= kernelTotal) {
      add('medium', `Low occupancy: ${data.description.names[name]}`,
        [`theoretical occupancy ${occupancy.toFixed(3)} over ${launches[name]} launches, ${formatDuration(kernelNs[name])} (${pct(kernelNs[name], kernelTotal)} of kernel time)`],
        'Fewer warps than the multiprocessor can hold hide memory latency poorly: use larger blocks, fewer registers per thread (launch bounds) or less shared memory per block.',
        [first[name], first[name] + 1000]);
    }
  }

  // Stragglers, as stats --ranks finds them; regressions, as stats --compare.
  if (data.ranks) {
    const seen = new Map();
    for (const row of data.ranks.stragglers || []) {
      if (!seen.has(row.rank)) seen.set(row.rank, []);
      seen.get(row.rank).push(row);
    }
    for (const [rank, rows] of seen) {
      add('high', `Rank ${rank} is a straggler: ${rows[0].over_median_percent.toFixed(2)}% more GPU time than the median rank`,
        rows.slice(0, 5).map((r) => `${r.name}: ${formatDuration(r.time_ns)} against a median of ${formatDuration(r.median_ns)} (+${formatDuration(r.difference_ns)})`),
        'The other ranks wait for it at their next collective: look at its input share (load balance), its GPU and its node.',
        null);
    }
  }
  if (data.compare) {
    for (const row of data.compare.comparison || []) {
      if (row.verdict !== 'regressed') continue;
      add('high', `Regressed: ${row.name}`,
        [`average ${formatDuration(row.base_avg_ns)} before, ${formatDuration(row.new_avg_ns)} now (${row.avg_change_percent >= 0 ? '+' : ''}${row.avg_change_percent.toFixed(2)}%), ${row.share_percent.toFixed(2)}% of the GPU time`],
        'Compare the kernel\'s launch configuration and inputs between the two runs; profile it with counters to see what changed.',
        null);
    }
  }
  const order = { high: 0, medium: 1, low: 2 };
  findings.sort((a, b) => order[a.severity] - order[b.severity]);
  return findings;
}

function showFindings(list, findings, timeline) {
  if (findings.length === 0) list.append(element('li', { class: 'none' }, 'Nothing stands out.'));
  for (const f of findings) {
    const li = element('li', { class: 'severity-' + f.severity }, element('span', { class: 'title' }, f.title));
    if (f.where && timeline) {
      li.append(element('button', { onclick: () => timeline.show(f.where[0], f.where[1]) }, 'show in the timeline'));
    }
    li.append(element('ul', {}, ...f.evidence.map((e) => element('li', {}, e))), element('div', {}, f.advice));
    list.append(li);
  }
}

// ---- Memory, ranks ----

function showMemory(section, description) {
  let any = false;
  for (const process of description.processes) {
    if (!process.memory) continue;
    any = true;
    const m = process.memory;
    section.append(element('h3', {}, `${process.program} (${process.pid})`));
    const table = element('table', { 'data-table': 'memory' },
      element('tr', {}, element('th', {}, 'Device'), element('th', {}, 'Peak'), element('th', {}, 'At'), element('th', {}, 'At the end')));
    for (const d of m.devices) {
      table.append(element('tr', {}, element('td', {}, d.device), element('td', { 'data-value': d.peak_bytes }, formatBytes(d.peak_bytes)),
        element('td', {}, formatDuration(d.peak_ns)), element('td', {}, formatBytes(d.end_bytes))));
    }
    section.append(table, element('p', {}, `Never freed: ${m.never_freed} allocations, ${formatBytes(m.never_freed_bytes)}.`));
    if (m.largest_never_freed.length) {
      const leaks = element('table', { 'data-table': 'never_freed' },
        element('tr', {}, element('th', {}, 'Device'), element('th', {}, 'Bytes'), element('th', {}, 'Kind'), element('th', {}, 'Allocated at'), element('th', {}, 'Call')));
      for (const a of m.largest_never_freed) {
        leaks.append(element('tr', {}, element('td', {}, a.device), element('td', {}, formatBytes(a.bytes)), element('td', {}, a.kind),
          element('td', {}, formatDuration(a.at_ns)), element('td', { class: 'text' }, description.names[a.call])));
      }
      section.append(leaks);
    }
  }
  if (!any) section.append(element('p', { class: 'none' }, 'No memory was traced (memtrace records it).'));
  section.append(element('p', { class: 'help' }, 'The curve of each device\'s use is in the timeline, under its process.'));
}

// Kernel time by file (each file a rank) as a heat map: a cell's shade is its time over
// the row's largest.
function showRanks(section, ranks, perFile, files) {
  if (!ranks) {
    section.hidden = true;
    return;
  }
  const kernels = new Map();
  perFile.forEach((tables, f) => {
    for (const row of tables.gpu_activities) kernels.set(row.name, (kernels.get(row.name) || 0) + row.time_ns);
  });
  const names = [...kernels.entries()].sort((a, b) => b[1] - a[1]).slice(0, 20).map((e) => e[0]);
  const body = element('tbody');
  const table = element('table', { class: 'heat', 'data-table': 'heat_map' },
    element('thead', {}, element('tr', {}, element('th', {}, 'Name'), ...files.map((f) => element('th', { title: f }, f.split('/').pop())))), body);
  for (const name of names) {
    const times = perFile.map((tables) => (tables.gpu_activities.find((r) => r.name === name) || { time_ns: 0 }).time_ns);
    const max = Math.max(...times);
    const tr = element('tr', {}, element('td', { class: 'text', 'data-key': 'name', 'data-value': name }, name));
    for (const t of times) {
      const shade = max > 0 ? t / max : 0;
      tr.append(element('td', { class: 'cell', 'data-value': t, style: `background: rgba(225, 87, 89, ${shade.toFixed(3)})` }, formatDuration(t)));
    }
    body.append(tr);
  }
  section.append(element('h3', {}, 'Kernel time by file'), table);
  fillTables(section, ranks);
}

// ---- Start ----

async function start() {
  // Milliseconds each step took (docs/performance.md's numbers).
  const timings = (report.timings = {});
  let last = performance.now();
  const step = (name) => {
    const now = performance.now();
    timings[name] = Math.round(now - last);
    last = now;
  };
  // The tables first: they are small, and shown while the timeline is decoded.
  const stats = elementJson('cprof-stats');
  const ranks = elementJson('cprof-ranks');
  const compare = elementJson('cprof-compare');
  const description = elementJson('cprof-timeline-description');
  const files = elementJson('cprof-files');
  const perFile = [];
  for (let i = 0; document.getElementById('cprof-file-stats-' + i); i++) perFile.push(elementJson('cprof-file-stats-' + i));
  Object.assign(report, { stats, ranks, compare, description });
  document.getElementById('inputs').textContent = files.join(', ');
  fillTables(document.getElementById('tables'), stats);
  showMemory(document.getElementById('memory'), description);
  showRanks(document.getElementById('ranks'), ranks, perFile, files);
  if (compare) fillTables(document.getElementById('comparison'), compare);
  else document.getElementById('comparison').hidden = true;
  document.getElementById('findings').append(element('li', { class: 'none' }, 'Reading the timeline…'));
  step('tables');
  await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
  report.tablesShown = performance.now();

  const items = elementBytes('cprof-timeline-items');
  step('base64');
  const inflated = await inflate(items);
  step('inflate');
  const tracks = decodeTimeline(description, inflated);
  report.tracks = tracks;
  step('decode');
  let timeline = null;
  if (description.tracks.length > 0) {
    timeline = new Timeline(document.getElementById('timeline'), document.getElementById('tooltip'),
      document.getElementById('details'), description, tracks);
    report.view = { ...timeline.view };
    report.timeline = timeline;
  } else {
    document.getElementById('timeline-section').append(element('p', { class: 'none' }, 'No run file among the inputs: no timeline.'));
    document.getElementById('timeline-box').hidden = true;
  }
  step('timeline');
  await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
  report.timelineShown = performance.now();
  report.findings = analyse({ stats, ranks, compare, description }, tracks);
  document.getElementById('findings').replaceChildren();
  showFindings(document.getElementById('findings'), report.findings, timeline);
  step('analysis');
  report.ready = true;
}

start().catch((error) => {
  report.error = String(error && error.stack ? error.stack : error);
  document.getElementById('findings').replaceChildren(element('li', {}, 'The report cannot be shown: ' + error));
  throw error;
});
