// The C tests in wasm under jco (./ctests.mjs).
import { defineCTests } from './ctests.mjs';

defineCTests('jco');
