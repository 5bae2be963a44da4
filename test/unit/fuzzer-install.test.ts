// The contract fuzzer's packages must look third-party to Hypothesis (scripts/tools.ts, sitePackages): otherwise it
// feeds their string constants into generated requests, and one of them (urllib3's `@@@SKIP_HEADER@@@` as a header
// value) made the fuzz step fail on an error of the fuzzer itself.
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { ensureTool } from '../../scripts/tools.ts';

test("Hypothesis does not take the fuzzer's own packages (urllib3, requests, schemathesis) for project code", async () => {
  const st = await ensureTool('st');
  const probe = [
    'import json, urllib3, requests, schemathesis',
    'from hypothesis.internal.constants_ast import is_local_module_file as local',
    'print(json.dumps([local(m.__file__) for m in (urllib3, requests, schemathesis)]))',
  ].join('\n');
  const out = execFileSync('python3', ['-c', probe], { env: { ...process.env, PYTHONPATH: join(dirname(dirname(st)), 'site-packages') }, encoding: 'utf8' });
  expect(JSON.parse(out)).toEqual([false, false, false]);
}, 120_000);
