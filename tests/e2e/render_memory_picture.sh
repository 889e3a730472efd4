#!/usr/bin/env bash
# The memtrace picture of memory_client's peak renders as an image (rsvg-convert, from
# librsvg2-bin, as a browser would read it): a PNG of the SVG's size whose pixels are not
# all white. Exit 77 (skipped) where rsvg-convert is not installed.
#   render_memory_picture.sh <memory_client> <libcomputeprof.so> <simdriver dir> <out dir> [sanitizer runtime]
set -euo pipefail
client=$1 simdriver=$3 out=$4
# The shim, after the sanitizer runtime when one is given (it must come first).
preload=${5:+$5:}$2
command -v rsvg-convert >/dev/null || { echo "rsvg-convert not installed (librsvg2-bin)"; exit 77; }
rm -rf "$out" && mkdir -p "$out" && cd "$out"
printf 'memtrace\n' >memtrace.cfg
env COMPUTE_PROFILE=1 COMPUTE_PROFILE_CONFIG=memtrace.cfg COMPUTE_PROFILE_LOG=run.log LD_LIBRARY_PATH="$simdriver" \
  LD_PRELOAD="$preload" "$client" dlsym peak >client.out 2>client.err
rsvg-convert run_memory.svg -o run_memory.png
python3 - run_memory.png <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], 'rb').read()
assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
width, height = struct.unpack('>II', data[16:24])
assert (width, height) == (960, 420), f'size {width}x{height}, expected 960x420'
# The image data: some pixels must differ from the white background.
chunks, at = [], 8
while at < len(data):
    length, kind = struct.unpack('>I4s', data[at:at + 8])
    if kind == b'IDAT':
        chunks.append(data[at + 8:at + 8 + length])
    at += 12 + length
raw = zlib.decompress(b''.join(chunks))
assert raw.count(b'\xff') < len(raw) * 0.99, 'the picture is blank'
print(f'run_memory.png {width}x{height}, drawn')
PY
