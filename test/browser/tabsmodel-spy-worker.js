// The Worker script a test tab of the model-based test starts in place of
// the package's (tabsmodel-page.js): the spy first, then the package's
// own Worker script, unchanged.
import './tabsmodel-spy.js';
import '/dist/worker-script.js';
