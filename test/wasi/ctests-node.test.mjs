// The C tests in wasm under node (./ctests.mjs).
import { defineCTests } from './ctests.mjs';

defineCTests('node');
