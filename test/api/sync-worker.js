// Runs the synchronous API's tests (sync-api.js) in a dedicated
// Worker, where OPFS is usable; posts back [{ name, ok, error }].
import { tests } from './sync-api.js';
import { runTests } from './assert.js';

self.onmessage = async ({ data }) => {
  self.postMessage(await runTests(tests, data.storages, data.ctx, ' [sync]'));
};
