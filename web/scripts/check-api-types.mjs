// Fails when src/lib/api/schema.d.ts is not what `npm run gen:api` makes of api/openapi.json
// today (`make test` runs it). The generator's command line is read from package.json, so the
// check and the generator cannot drift apart. (api/openapi.json itself is checked against the Go
// sources by internal/docs' TestGenerateIsDeterministic.)
import { execSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const committed = 'src/lib/api/schema.d.ts';
const gen = JSON.parse(readFileSync('package.json', 'utf8')).scripts['gen:api'];
if (!gen.includes(`-o ${committed}`)) throw new Error(`gen:api no longer writes ${committed}; update this check`);

const dir = mkdtempSync(join(tmpdir(), 'timbre-api-types-'));
try {
  const fresh = join(dir, 'schema.d.ts');
  execSync(gen.replace(`-o ${committed}`, `-o ${fresh}`), {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, PATH: `${join(process.cwd(), 'node_modules', '.bin')}:${process.env.PATH}` },
  });
  if (readFileSync(fresh, 'utf8') !== readFileSync(committed, 'utf8')) {
    console.error(`${committed} is out of date with api/openapi.json: run npm run gen:api (in web/).`);
    process.exit(1);
  }
  console.log(`${committed} is up to date with api/openapi.json.`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
