#!/usr/bin/env python3
"""wasm/wasi/wasmtime-run.py (wasmtime) with the test-only hooks of
hooked-run.mjs on the module's WASI calls, chosen by the same environment
variables of the host process (never passed to the module):
  TEMPCRYPT_FREEZE_CLOCK=NS    clock_time_get always answers NS nanoseconds
  TEMPCRYPT_OPEN_LOG=FILE      append every path the module opens
                               (path_open) to FILE, one a line
  TEMPCRYPT_CAPTURE_OUT=FILE   record every byte the module hands to
                               fd_write and fd_pwrite, by the path it opened
                               the descriptor with, and write
                               { path: { bytes, hits } } to FILE at exit,
                               hits counting TEMPCRYPT_CAPTURE_MARKER
The hooked calls go on to wasmtime's own WASI functions (wasmtime-run.py
forwards them), so the module sees wasmtime's answers.
  python3 hooked-run.py [--dir ...] [--env ...] module.wasm [args...]
"""
import json
import os
import sys

sys.dont_write_bytecode = True   # no __pycache__ in wasm/wasi/
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'wasm', 'wasi'))
wasmtime_run = __import__('wasmtime-run')

freeze = os.environ.get('TEMPCRYPT_FREEZE_CLOCK')
open_log = os.environ.get('TEMPCRYPT_OPEN_LOG')
capture_out = os.environ.get('TEMPCRYPT_CAPTURE_OUT')

files = {}   # path -> [bytes] (capture)
by_fd = {}   # fd -> path (capture)


def wrap(p1, memory):
    if freeze is not None:
        t = int(freeze).to_bytes(8, 'little')

        def clock_time_get(clock_id, precision, ptr):
            memory().write(ptr, t)
            return 0
        p1['clock_time_get'] = clock_time_get
    if open_log or capture_out:
        path_open = p1['path_open']

        def hooked_open(fd, dirflags, path_ptr, path_len, oflags, rb, ri, fdflags, out_ptr):
            path = memory().read(path_ptr, path_len).decode('utf-8')
            if open_log:
                with open(open_log, 'a', encoding='utf-8') as f:
                    f.write(path + '\n')
            r = path_open(fd, dirflags, path_ptr, path_len, oflags, rb, ri, fdflags, out_ptr)
            if r == 0:
                by_fd[memory().u32(out_ptr)] = path
            return r
        p1['path_open'] = hooked_open
    if capture_out:
        def recorder(f):
            def hooked_write(fd, iovs, n, *rest):
                path = by_fd.get(fd)
                if path is not None:
                    m = memory()
                    for i in range(n):
                        files.setdefault(path, []).append(m.read(m.u32(iovs + 8 * i), m.u32(iovs + 8 * i + 4)))
                return f(fd, iovs, n, *rest)
            return hooked_write
        for name in ('fd_write', 'fd_pwrite'):
            if name in p1:
                p1[name] = recorder(p1[name])
    return p1


code = wasmtime_run.run(wasmtime_run.parse_args(sys.argv[1:]), wrap)
if capture_out:
    marker = os.environ.get('TEMPCRYPT_CAPTURE_MARKER', '').encode()
    out = {}
    for path, chunks in files.items():
        data = b''.join(chunks)
        out[path] = {'bytes': len(data), 'hits': data.count(marker) if marker else 0}
    with open(capture_out, 'w', encoding='utf-8') as f:
        json.dump(out, f)
sys.stdout.flush()
os._exit(code)
