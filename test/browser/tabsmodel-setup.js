// The setup module of the model-based test's tabs (tabsmodel-page.js
// opens every database with it): quit() makes the Worker that runs the
// database end itself (self.close()), as an app's own code might.
export default function setup(db) {
  db.function('quit', () => {
    self.close();
    return 1;
  });
}
