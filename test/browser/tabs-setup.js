// The setup module of the multi-tab test's tabs (test/browser/multitab.mjs):
// hang(ms) keeps the owner's Worker busy for ms, so that the test can close
// the owner's tab while it runs a call.
export default function setup(db) {
  db.function('hang', (ms) => {
    const until = Date.now() + ms;
    while (Date.now() < until) { /* busy */ }
    return ms;
  });
}
