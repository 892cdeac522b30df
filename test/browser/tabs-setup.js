// The setup module of the multi-tab tests' tabs (test/browser/multitab.mjs,
// tabs-rules.mjs): hang(ms) keeps the owner's Worker busy for ms, so that
// the test can close the owner's tab while it runs a call; quit() makes
// the Worker end itself (self.close()) as an app's code might;
// break_close() makes this database's close() fail after it closed.
export default function setup(db) {
  db.function('break_close', () => {
    const close = db.close.bind(db);
    db.close = async () => { await close(); throw new Error('close failed on purpose'); };
    return 1;
  });
  db.function('hang', (ms) => {
    const until = Date.now() + ms;
    while (Date.now() < until) { /* busy */ }
    return ms;
  });
  db.function('quit', () => {
    self.close();
    return 1;
  });
}
