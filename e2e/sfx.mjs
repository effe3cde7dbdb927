// Sound effects in headless Chromium: sign in → Sound Effects from the sidebar → the page says the
// engine is procedural → Explore → the Foley category → preview "Door creaks then slams" → "Use
// this prompt" fills the generator → generate four variations → each plays and is 4 s of audio
// (decoded in the page) → History lists the four → delete one after confirming.
//
//   TIMBRE_BASE_URL=… USER_EMAIL=… USER_PASSWORD=… node e2e/sfx.mjs
//
// Normally run by sfx_test.go. Screenshot: screenshots/sound-effects.png.
import { assert, env, fillSignIn, run } from './flow.mjs';
import { finishOnboarding } from './onboarding.mjs';

const email = env('USER_EMAIL');
const password = env('USER_PASSWORD');

await run('sfx', async ({ newPage, step, shot }) => {
  const page = await newPage('user');

  await step('sign in and open Sound Effects from the sidebar', page, async () => {
    await page.goto('/app/sign-in');
    await fillSignIn(page, email, password);
    await page.waitForURL(/\/app\/(speech-synthesis\/text-to-speech|onboarding)/);
    await finishOnboarding(page);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sound Effects' }).click();
    await page.waitForURL('**/app/sound-effects/generate');
    await page.getByRole('heading', { name: 'Sound Effects' }).waitFor();
    await page.getByText('procedural, not a neural model').waitFor();
  });

  await step('explore Foley, preview a prompt and use it', page, async () => {
    await page.getByRole('navigation', { name: 'Sound effects' }).getByRole('link', { name: 'Explore' }).click();
    await page.getByRole('link', { name: /^Foley/ }).click();
    await page.waitForURL('**/app/sound-effects/explore/category/foley');
    const preview = page.waitForResponse((r) => r.url().endsWith('/explore/door-creak-slam/audio'), { timeout: 30_000 });
    await page.getByRole('button', { name: 'Preview Door creaks then slams' }).click();
    assert((await preview).status() === 200, 'the preview did not load');
    await page.getByRole('button', { name: 'Use the prompt of Door creaks then slams' }).click();
    await page.waitForURL('**/app/sound-effects/generate?**');
    assert((await page.getByLabel('Describe the sound').inputValue()) === 'a door creaks then slams', 'the prompt was not filled in');
  });

  await step('generate four variations: each plays and lasts 4 s', page, async () => {
    await page.getByRole('button', { name: 'Generate 4 variations' }).click();
    const cards = page.getByTestId('sfx-variation');
    await cards.nth(3).waitFor({ timeout: 60_000 });
    assert((await cards.count()) === 4, `${await cards.count()} variations`);
    await cards.first().getByText('Recipes: door_creak, door_slam').waitFor();
    const secs = await page.evaluate(async () => {
      const out = [];
      for (const a of document.querySelectorAll('[data-testid="sfx-variation"] audio')) {
        const data = await (await fetch(a.src)).arrayBuffer();
        out.push((await new OfflineAudioContext(1, 1, 44100).decodeAudioData(data)).duration);
      }
      return out;
    });
    assert(secs.length === 4 && secs.every((s) => Math.abs(s - 4) < 0.1), `durations ${secs}`);
    await shot(page, 'sound-effects');
  });

  await step('the history lists them; delete one after confirming', page, async () => {
    await page.getByRole('navigation', { name: 'Sound effects' }).getByRole('link', { name: 'History' }).click();
    const items = page.getByTestId('sfx-history-item');
    await items.nth(3).waitFor();
    await items.first().getByRole('button', { name: 'Delete a door creaks then slams' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete this sound effect?' });
    await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    await items.nth(3).waitFor({ state: 'detached' });
    assert((await items.count()) === 3, `${await items.count()} items left`);
  });
});
