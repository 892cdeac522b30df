/*
 * JS side of the API's user-defined functions, aggregates and collations
 * (an emscripten --js-library; the C trampolines are in glue.c).  The
 * engine (js/engine/functions.js) registers a handler per id in TCAPI.handlers:
 *   { call(ctx, argc, argv) }                          a scalar function,
 *   { step(ctx, argc, argv), final(ctx) }              an aggregate,
 *   { compare(n1, p1, n2, p2) }                        a collation.
 * A handler never lets an exception into wasm: it reports it to SQLite.
 */
mergeInto(LibraryManager.library, {
  $TCAPI__postset: "Module['tcapi'] = TCAPI; TCAPI.handlers = new Map();",
  $TCAPI: {
    handlers: null,   // id -> handler (a Map, made by the postset)
  },

  tc_js_call__deps: ['$TCAPI'],
  tc_js_call: function(id, ctx, argc, argv) {
    var h = TCAPI.handlers.get(id);
    if (h) h.call(ctx, argc, argv);
  },

  tc_js_step__deps: ['$TCAPI'],
  tc_js_step: function(id, ctx, argc, argv) {
    var h = TCAPI.handlers.get(id);
    if (h) h.step(ctx, argc, argv);
  },

  tc_js_final__deps: ['$TCAPI'],
  tc_js_final: function(id, ctx) {
    var h = TCAPI.handlers.get(id);
    if (h) h.final(ctx);
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
