// The setup module of the API tests: open(name, { setup: URL }) runs it in
// the Worker with the synchronous database.
export default function setup(db) {
  db.function('twice', (x) => x * 2, { deterministic: true });
  db.aggregate('product', { start: 1, step: (acc, x) => acc * x });
  db.collation('backwards', (a, b) => (a < b ? 1 : a > b ? -1 : 0));
}
