#!/usr/bin/env python3
"""Runs a WASI preview1 command module under wasmtime with the command line
of `wasmtime run`, for machines without the wasmtime CLI:

  python3 wasm/wasi/wasmtime-run.py [--dir HOST[::GUEST]]... [--env NAME[=VALUE]]... \\
          module.wasm [args...]

is the same as

  wasmtime run [--dir HOST[::GUEST]]... [--env NAME[=VALUE]]... module.wasm [args...]

It uses the `wasmtime` package of the Python package index (the embedding
API of the same release as the CLI: the same engine and the same WASI
preview1 implementation, wasmtime-wasi, as `wasmtime run` uses for a core
module); scripts/install-deps.sh installs it into build/tools/venv.

--dir preopens a host directory, read-write, under the guest path GUEST
(default: the host path as written, so `--dir=.` is the guest's "."); --env
sets a variable (without a value: copies the host's).  The module gets its
path as argv[0], the arguments after it, the standard streams, and nothing
else.  The exit code is the module's; as with the CLI, a trap prints the
error and exits with 134, a bad command line exits with 2, and a missing
directory or module with 1.
"""
import os
import sys

import wasmtime

P1 = 'wasi_snapshot_preview1'


def usage(msg, code=2):
    if msg:
        sys.stderr.write(f'wasmtime-run.py: {msg}\n')
    sys.stderr.write('usage: wasmtime-run.py [--dir HOST[::GUEST]]... [--env NAME[=VALUE]]... '
                     'module.wasm [args...]\n')
    sys.exit(code)


def parse_args(argv):
    """argv (without the program name) -> dict(preopens, env, module, args);
    preopens is a list of (host, guest) in command-line order."""
    preopens, env = [], {}
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == '--':
            i += 1
            break
        if not a.startswith('-'):
            break
        val = None
        if a.startswith('--') and '=' in a:
            a, val = a.split('=', 1)
        if val is None and a in ('--dir', '--env'):
            if i + 1 >= len(argv):
                usage(f'{a} needs a value')
            i += 1
            val = argv[i]
        if a == '--dir':
            host, sep, guest = val.partition('::')
            guest = guest if sep else host
            if not host or not guest:
                usage(f'bad --dir {val}')
            if not os.path.isdir(host):
                usage(f'--dir {host}: not a directory', 1)
            preopens.append((host, guest))
        elif a == '--env':
            name, sep, value = val.partition('=')
            if not name:
                usage(f'bad --env {val}')
            if sep:
                env[name] = value
            elif name in os.environ:
                env[name] = os.environ[name]
        else:
            usage(f'unknown option {a}')
        i += 1
    if i >= len(argv):
        usage('no module')
    return {'preopens': preopens, 'env': env, 'module': argv[i], 'args': argv[i + 1:]}


class GuestMemory:
    """The instance's linear memory, for the import wrappers of run()."""

    def __init__(self, store, memory):
        self.store, self.memory = store, memory

    def read(self, ptr, n):
        return self.memory.read(self.store, ptr, ptr + n)

    def write(self, ptr, data):
        self.memory.write(self.store, data, ptr)

    def u32(self, ptr):
        return int.from_bytes(self.read(ptr, 4), 'little')


def _forwarder(imports):
    """A module that imports the WASI functions and the main module's memory
    and exports both: a host function cannot call WASI itself (WASI finds
    the memory through its wasm caller), so a wrapper calls WASI through
    this module, which shares the main module's memory."""
    heads, bodies = ['(module', '  (import "env" "memory" (memory 0))'], []
    for i, (name, ty) in enumerate(imports):
        params = ' '.join(str(p) for p in ty.params)
        results = ' '.join(str(r) for r in ty.results)
        sig = (f'(param {params})' if params else '') + (f' (result {results})' if results else '')
        gets = ' '.join(f'local.get {k}' for k in range(len(ty.params)))
        heads.append(f'  (import "{P1}" "{name}" (func $w{i} {sig}))')
        bodies.append(f'  (func (export "{name}") {sig} {gets} call $w{i})')
    return '\n'.join(heads + bodies + ['  (export "memory" (memory 0)))'])


def run(opts, wrap=None):
    """Runs the module; returns its exit code.  wrap (tests only) may
    replace WASI imports: it gets a dict name -> function that calls the
    real WASI function, and a function returning the GuestMemory, and
    returns the dict to use (the same function where nothing changes)."""
    engine = wasmtime.Engine()
    module = wasmtime.Module.from_file(engine, opts['module'])
    store = wasmtime.Store(engine)
    wasi = wasmtime.WasiConfig()
    wasi.argv = [opts['module'], *opts['args']]
    wasi.env = list(opts['env'].items())
    for host, guest in opts['preopens']:
        wasi.preopen_dir(host, guest)
    wasi.inherit_stdin()
    wasi.inherit_stdout()
    wasi.inherit_stderr()
    store.set_wasi(wasi)
    linker = wasmtime.Linker(engine)
    linker.define_wasi()

    state = {}
    if wrap:
        imports = [(i.name, i.type) for i in module.imports
                   if i.module == P1 and isinstance(i.type, wasmtime.FuncType)]
        real = {name: (lambda n: lambda *a: state['fwd'][n](store, *a))(name) for name, _ in imports}
        table = wrap(dict(real), lambda: state['mem'])
        linker.allow_shadowing = True
        for name, ty in imports:
            if table.get(name, real[name]) is not real[name]:
                linker.define_func(P1, name, ty, table[name])
    instance = linker.instantiate(store, module)
    exports = instance.exports(store)
    if wrap:
        state['mem'] = GuestMemory(store, exports['memory'])
        fwd_linker = wasmtime.Linker(engine)
        fwd_linker.define_wasi()
        fwd_linker.define(store, 'env', 'memory', exports['memory'])
        fwd = fwd_linker.instantiate(store, wasmtime.Module(engine, _forwarder(imports)))
        state['fwd'] = fwd.exports(store)
    try:
        exports['_start'](store)
        return 0
    except wasmtime.ExitTrap as e:
        return e.code
    except (wasmtime.Trap, wasmtime.WasmtimeError) as e:
        sys.stderr.write(f"Error: failed to run main module `{opts['module']}`\n\n{e}\n")
        return 134


if __name__ == '__main__':
    opts = parse_args(sys.argv[1:])
    try:
        code = run(opts)
    except OSError as e:
        sys.stderr.write(f"Error: failed to read module `{opts['module']}`: {e.strerror}\n")
        code = 1
    sys.stdout.flush()
    os._exit(code)
