// In the Worker a test tab of the model-based test starts for a database
// (test/browser/tabsmodel.mjs; tabsmodel-spy-worker.js loads this first):
// every message that reaches the Worker on a BroadcastChannel or a
// MessagePort is looked at before the package sees it.  Each 'OP:<n>'
// string in it (the tag a read of the test returns) is reported, with the
// tab that received it, on the channel SPY_CHANNEL; the test checks that
// only the tab that made read n ever receives its tag.  Test code only:
// the package knows nothing of it.
export const SPY_CHANNEL = 'tabsmodel-spy';
const TAG = /^OP:(\d+)$/;

const tab = new URLSearchParams(self.location.search).get('tab') || '?';
const report = new BroadcastChannel(SPY_CHANNEL);   // before the patch: not looked at
let messages = 0, bytes = 0;

// The tags in a message's data (and a rough size of it).
function look(data) {
  const tags = [];
  const walk = (v, depth) => {
    if (typeof v === 'string') { bytes += v.length; const m = TAG.exec(v); if (m) tags.push(Number(m[1])); return; }
    if (v instanceof ArrayBuffer || ArrayBuffer.isView(v)) { bytes += v.byteLength; return; }
    if (!v || typeof v !== 'object' || depth > 8) { bytes += 8; return; }
    for (const k of Object.keys(v)) walk(v[k], depth + 1);
  };
  messages++;
  walk(data, 0);
  for (const op of tags) report.postMessage({ tab, db: self.name, op, messages, bytes });
}

function wrap(fn) {
  if (typeof fn !== 'function') return fn;
  if (!fn.spied) fn.spied = function spied(ev) { look(ev.data); return fn.call(this, ev); };
  return fn.spied;
}

for (const C of [globalThis.BroadcastChannel, globalThis.MessagePort]) {
  if (!C) continue;
  const d = Object.getOwnPropertyDescriptor(C.prototype, 'onmessage');
  Object.defineProperty(C.prototype, 'onmessage', {
    configurable: true, enumerable: d.enumerable,
    get() { return d.get.call(this); },
    set(fn) { d.set.call(this, wrap(fn)); },
  });
}
const add = EventTarget.prototype.addEventListener;
const remove = EventTarget.prototype.removeEventListener;
const spied = (t, type) => type === 'message' && (t instanceof BroadcastChannel || (globalThis.MessagePort && t instanceof MessagePort));
EventTarget.prototype.addEventListener = function (type, fn, ...rest) { return add.call(this, type, spied(this, type) ? wrap(fn) : fn, ...rest); };
EventTarget.prototype.removeEventListener = function (type, fn, ...rest) { return remove.call(this, type, spied(this, type) && fn ? fn.spied || fn : fn, ...rest); };
