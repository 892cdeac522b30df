// The C tests in wasm under wasmtime (./ctests.mjs).
import { defineCTests } from './ctests.mjs';

defineCTests('wasmtime');
