// The browser engines the tests run in, and one page API over all of them.
// Each engine has a small adapter (chromium.mjs, firefox.mjs, webkit.mjs)
// that knows how to launch it, where its profile keeps OPFS bytes, and what
// it can do; everything else is shared here.
//
//   BROWSERS=chromium,firefox,webkit   the engines to run (default: every
//                                      engine installed on this machine)
//
// An adapter exports:
//   name          'chromium' | 'firefox' | 'webkit'
//   missing()     null when it can run here, else why not (string)
//   start(profile, { viewport, quotaMiB })
//                 -> { version, newPage() -> PageDriver, close() }
//                 profile: a fresh directory, or null when the engine keeps
//                 no profile on disk
//   opfsDir(profile, origin)
//                 where raw OPFS file bytes land, or null (not on disk)
//   caps          { opfs, quota: true | 'why not', quotaBy: 'override'
//                   (per origin, at run time) | 'launch' (start option
//                   quotaMiB), initScript: bool, events: bool }
// A PageDriver has evalSource(src) (a JS expression whose value is a
// Promise of a JSON string), goto(url), reload(), screenshot() -> PNG
// bytes, close(), and optionally addInitScript(src), overrideQuota(origin,
// bytes | null), on(event, fn).
import fs from 'node:fs';
import path from 'node:path';

const ALL = ['chromium', 'firefox', 'webkit'];

export async function adapter(name) {
  if (!ALL.includes(name)) throw new Error(`unknown browser engine "${name}" (known: ${ALL.join(', ')})`);
  return import(`./${name}.mjs`);
}

// The engines to run: BROWSERS names them (an engine named there but not
// installed is an error); by default every engine that can run here, and
// the others are reported with the reason.  -> { run: [adapter], absent:
// [{ name, why }] }
export async function selectEngines(list = process.env.BROWSERS) {
  const named = list ? list.split(',').map((s) => s.trim()).filter(Boolean) : null;
  const run = [], absent = [];
  for (const name of named || ALL) {
    const a = await adapter(name);
    const why = a.missing();
    if (why && named) throw new Error(`BROWSERS names ${name}, but it cannot run here: ${why}`);
    if (why) absent.push({ name, why }); else run.push(a);
  }
  return { run, absent };
}

// A new, empty profile directory dir/profile-<tag>-XXXXXX.
export function freshProfile(dir, tag) {
  fs.mkdirSync(dir, { recursive: true });
  return fs.mkdtempSync(path.join(dir, `profile-${tag}-`));
}

// The expression a PageDriver evaluates for fn(arg): the value goes back
// as JSON (so every engine returns the same thing), an exception as
// { error }.
export function sourceOf(fn, arg) {
  const a = arg === undefined ? 'undefined' : JSON.stringify(arg);
  return `Promise.resolve().then(() => (${fn})(${a})).then((v) => JSON.stringify({ v }),
    (e) => JSON.stringify({ error: String(e && e.stack || e) }))`;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// The page API the tests use: evaluate() and a few DOM helpers in the
// style of Playwright's, all built on the driver's evalSource().
export class Page {
  constructor(driver, engine) {
    this.driver = driver;
    this.engine = engine;
    this.currentUrl = null;
  }

  async evaluate(fn, arg) {
    const out = JSON.parse(await this.driver.evalSource(sourceOf(fn, arg)));
    if (out.error !== undefined) throw new Error(`in the page (${this.engine}): ${out.error}`);
    return out.v;
  }

  async goto(url) { this.currentUrl = url; await this.driver.goto(url); }
  reload() { return this.driver.reload(); }
  url() { return this.currentUrl; }
  close(options) { return this.driver.close(options); }
  screenshot() { return this.driver.screenshot(); }
  // Console messages ({ type(), text() }) and page errors, where the engine
  // reports them (caps.events); elsewhere nothing is called.
  on(event, fn) { if (this.driver.on) this.driver.on(event, fn); }
  addInitScript(fn) {
    if (!this.driver.addInitScript) throw new Error(`${this.engine}: no init scripts`);
    return this.driver.addInitScript(`(${fn})()`);
  }
  overrideQuota(origin, bytes) {
    if (!this.driver.overrideQuota) throw new Error(`${this.engine}: no quota override`);
    return this.driver.overrideQuota(origin, bytes);
  }

  // Poll fn(arg) in the page until it returns a truthy value.
  async waitForFunction(fn, arg, { timeout = 30000, what = String(fn) } = {}) {
    const end = Date.now() + timeout;
    for (;;) {
      let v;
      try { v = await this.evaluate(fn, arg); } catch (e) { if (Date.now() > end) throw e; }
      if (v) return v;
      if (Date.now() > end) throw new Error(`${this.engine}: timed out after ${timeout} ms waiting for ${what}`);
      await sleep(100);
    }
  }
  waitForSelector(sel, { timeout = 30000 } = {}) {
    return this.waitForFunction((s) => !!document.querySelector(s), sel, { timeout, what: sel });
  }

  // fn(element, arg) / fn(elements, arg) in the page.
  $eval(sel, fn, arg) {
    return this.evaluate(`({ sel, arg }) => { const e = document.querySelector(sel);
      if (!e) throw new Error('no element ' + sel); return (${fn})(e, arg); }`, { sel, arg });
  }
  $$eval(sel, fn, arg) {
    return this.evaluate(`({ sel, arg }) => (${fn})([...document.querySelectorAll(sel)], arg)`, { sel, arg });
  }
  getAttribute(sel, name) { return this.$eval(sel, (e, n) => e.getAttribute(n), name); }
  textContent(sel) { return this.$eval(sel, (e) => e.textContent); }
  inputValue(sel) { return this.$eval(sel, (e) => e.value); }
  isDisabled(sel) { return this.$eval(sel, (e) => e.disabled); }
  isVisible(sel) {
    return this.evaluate((s) => { const e = document.querySelector(s); return !!e && !e.hidden && e.getClientRects().length > 0; }, sel);
  }
  async isHidden(sel) { return !(await this.isVisible(sel)); }
  click(sel) { return this.$eval(sel, (e) => { e.click(); }); }
  fill(sel, value) { return this.$eval(sel, (e, v) => { e.value = v; e.dispatchEvent(new Event('input', { bubbles: true })); }, value); }
  selectOption(sel, value) {
    return this.$eval(sel, (e, v) => { e.value = v; e.dispatchEvent(new Event('change', { bubbles: true })); }, value);
  }
}

// A launched engine: newPage() gives Pages; close() ends the browser.
export async function launchEngine(engine, profile, options = {}) {
  const b = await engine.start(profile, options);
  return {
    engine: engine.name,
    version: b.version,
    async newPage() { return new Page(await b.newPage(), engine.name); },
    close: () => b.close(),
  };
}
