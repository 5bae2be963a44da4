// Completes package-lock.json after `npm install` on this workplace's npm registry mirror.
//
// Why: the mirror does not serve other platforms' prebuilt binaries (darwin, win32, ...), so npm
// leaves those optional dependencies out of the lockfile, and `npm ci` then refuses the lockfile
// as "out of sync". We add each missing optional package as an entry gated by os/cpu (read from
// its conventional name), so `npm ci` accepts the lockfile and skips them on every other platform.
// Run after changing dependencies: `npm install && node scripts/complete-lockfile.mjs`.
import { readFileSync, writeFileSync } from 'node:fs';

const LOCK = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(LOCK, 'utf8'));
const OS = ['darwin', 'win32', 'linux', 'android', 'freebsd', 'openharmony', 'sunos', 'aix', 'netbsd', 'openbsd'];
const CPU = { x64: 'x64', arm64: 'arm64', arm: 'arm', ia32: 'ia32', ppc64: 'ppc64', s390x: 's390x', loong64: 'loong64', riscv64: 'riscv64' };

function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = parts.find((p) => OS.includes(p));
  const cpu = parts.map((p) => CPU[p]).find(Boolean);
  return os && cpu ? { os: [os], cpu: [cpu] } : null;
}

let added = 0;
for (const [path, entry] of Object.entries(lock.packages)) {
  for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const parentDir = path === '' ? '' : `${path}/`;
    if (lock.packages[`${parentDir}node_modules/${dep}`] || lock.packages[`node_modules/${dep}`]) continue;
    const platform = platformOf(dep);
    if (!platform) continue; // not a platform binary: leave npm's own judgement alone
    lock.packages[`node_modules/${dep}`] = { version, optional: true, ...platform };
    added++;
  }
}
lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
writeFileSync(LOCK, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lockfile: added ${added} platform-gated optional entries`);
