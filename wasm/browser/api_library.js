/*
 * JS side of the API's user-defined functions, aggregates and collations
 * (an emscripten --js-library; the C trampolines are in glue.c).  The
 * engine (js/engine.js) registers a handler per id in TCAPI.handlers:
 *   { call(kind, ctx, argc, argv) } for functions and aggregates,
 *   { compare(n1, p1, n2, p2) } for collations.
 * A handler never lets an exception into wasm: it reports it to SQLite.
 */
mergeInto(LibraryManager.library, {
  $TCAPI__postset: "Module['tcapi'] = TCAPI; TCAPI.handlers = new Map();",
  $TCAPI: {
    handlers: null,   // id -> handler (a Map, made by the postset)
  },

  tc_js_func__deps: ['$TCAPI'],
  tc_js_func: function(kind, id, ctx, argc, argv) {
    var h = TCAPI.handlers.get(id);
    if (h) h.call(kind, ctx, argc, argv);
  },

  tc_js_collate__deps: ['$TCAPI'],
  tc_js_collate: function(id, n1, p1, n2, p2) {
    var h = TCAPI.handlers.get(id);
    return h ? h.compare(n1, p1, n2, p2) : 0;
  },

  tc_js_destroy__deps: ['$TCAPI'],
  tc_js_destroy: function(id) {
    TCAPI.handlers.delete(id);
  },
});
