// Imported by `jco run --jco-import` before the component starts (see
// jco-run.mjs): gives the component exactly the preopened directories and
// environment variables passed in TEMPCRYPT_JCO_DIRS / TEMPCRYPT_JCO_ENV
// (JSON objects guest->host and name->value), like wasmtime's --dir/--env,
// and reports stdin/stdout/stderr as terminals only when they are (the shim
// says they always are, which makes the sqlite3 shell prompt on a pipe).
import process from 'node:process';
import {
  _setEnv, _setCwd, _setTerminalStdin, _setTerminalStdout, _setTerminalStderr,
} from '@bytecodealliance/preview2-shim/cli';
import { _setPreopens } from '@bytecodealliance/preview2-shim/filesystem';

const dirs = JSON.parse(process.env.TEMPCRYPT_JCO_DIRS || '{}');
const env = JSON.parse(process.env.TEMPCRYPT_JCO_ENV || '{}');
_setPreopens(dirs);
_setEnv(env);
_setCwd(undefined);
if (!process.stdin.isTTY) _setTerminalStdin(undefined);
if (!process.stdout.isTTY) _setTerminalStdout(undefined);
if (!process.stderr.isTTY) _setTerminalStderr(undefined);
