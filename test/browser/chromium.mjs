// Engine adapter (see engines.mjs): headless Chromium, Debian's chromium
// driven by playwright-core, on a persistent profile.  OPFS files are plain
// files under <profile>/Default/File System/; the quota is overridden per
// origin over CDP.  No side effects on import.
import { chromium } from 'playwright-core';
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';

export { freshProfile } from './engines.mjs';

export const name = 'chromium';
const BIN = process.env.CHROMIUM || '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export const caps = { opfs: true, quota: true, quotaBy: 'override', initScript: true, events: true };

export function missing() {
  return fs.existsSync(BIN) ? null : `${BIN} is not installed (apt-get install chromium)`;
}

export function version() {
  try { return execFileSync(BIN, ['--version'], { encoding: 'utf8' }).trim(); } catch { return 'chromium (version unknown)'; }
}

export function opfsDir(profile) { return path.join(profile, 'Default', 'File System'); }

// A persistent browser context on `profile`; `options` go to
// launchPersistentContext (e.g. viewport).
export function launch(profile, options = {}) {
  return chromium.launchPersistentContext(profile, {
    executablePath: BIN, headless: true, args: CHROMIUM_ARGS, ...options,
  });
}

function driver(ctx, page) {
  let cdp = null;   // the override lasts as long as its CDP session
  return {
    evalSource: (src) => page.evaluate(src),
    goto: (url) => page.goto(url),
    reload: () => page.reload(),
    screenshot: () => page.screenshot({ fullPage: true }),
    close: () => page.close({ runBeforeUnload: false }),
    addInitScript: (src) => page.addInitScript(src),
    on: (event, fn) => {
      if (event === 'console') page.on('console', fn);
      else if (event === 'pageerror') page.on('pageerror', fn);
    },
    async overrideQuota(origin, bytes) {
      cdp ??= await ctx.newCDPSession(page);
      await cdp.send('Storage.overrideQuotaForOrigin', bytes == null ? { origin } : { origin, quotaSize: bytes });
      if (bytes == null) { await cdp.detach(); cdp = null; }
    },
  };
}

// The engine for engines.mjs: { version, newPage, close }.
export async function start(profile, { viewport } = {}) {
  const ctx = await launch(profile, viewport ? { viewport } : {});
  return {
    version: ctx.browser()?.version() ?? version(),
    newPage: async () => driver(ctx, await ctx.newPage()),
    close: () => ctx.close(),
  };
}
