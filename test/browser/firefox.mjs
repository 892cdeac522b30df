// Engine adapter (see engines.mjs): headless Firefox ESR (Debian's
// firefox-esr) driven by puppeteer-core over WebDriver BiDi, on a profile
// of its own.  OPFS file contents land raw under
// <profile>/storage/default/<origin with ':' and '/' as '+'>/fs/ (names only
// in fs/metadata.sqlite); the HTTP cache elsewhere in the profile holds the
// served scripts, so scans look at fs/ only.  The storage limit can only be
// set at launch (a pref: the global limit, of which one site gets a part).
import puppeteer from 'puppeteer-core';
import fs from 'node:fs';
import path from 'node:path';

export const name = 'firefox';
const BIN = process.env.FIREFOX || '/usr/bin/firefox-esr';

export const caps = { opfs: true, quota: true, quotaBy: 'launch', initScript: true, events: true };

export function missing() {
  return fs.existsSync(BIN) ? null : `${BIN} is not installed (apt-get install firefox-esr)`;
}

export function opfsDir(profile, origin) {
  return path.join(profile, 'storage', 'default', origin.replace(/[:/]/g, '+'), 'fs');
}

const PREFS = {
  'browser.shell.checkDefaultBrowser': false,
  'datareporting.policy.dataSubmissionEnabled': false,
  'toolkit.telemetry.reportingpolicy.firstRun': false,
  'app.update.enabled': false,
};

function driver(page) {
  return {
    evalSource: (src) => page.evaluate(src),
    goto: (url) => page.goto(url),
    reload: () => page.reload(),
    screenshot: async () => Buffer.from(await page.screenshot({ fullPage: true })),
    close: () => page.close({ runBeforeUnload: false }),
    addInitScript: (src) => page.evaluateOnNewDocument(src),
    on: (event, fn) => {
      if (event === 'console') page.on('console', fn);
      else if (event === 'pageerror') page.on('pageerror', fn);
    },
  };
}

// quotaMiB: Firefox's global storage limit (a site gets at most a fifth of
// it, and never less than 10 MiB).
export async function start(profile, { viewport = { width: 1280, height: 800 }, quotaMiB } = {}) {
  const prefs = { ...PREFS };
  if (quotaMiB) prefs['dom.quotaManager.temporaryStorage.fixedLimit'] = quotaMiB * 1024;
  const browser = await puppeteer.launch({
    browser: 'firefox', executablePath: BIN, headless: true, userDataDir: profile,
    defaultViewport: viewport, extraPrefsFirefox: prefs,
    // One evaluate may run a whole suite in the page (the conformance
    // suite takes minutes on a loaded 2-core machine); 180 s is too short.
    protocolTimeout: 20 * 60 * 1000,
  });
  return {
    version: await browser.version(),
    async newPage() { return driver(await browser.newPage()); },
    close: () => browser.close(),
  };
}
