// Adding a voice from the voice library in headless Chromium: sign in as workspace B → Voice
// Library from the sidebar → filter by gender → A's published voice is listed with a playable
// preview → Add → name it in the dialog → the voice joins "My voices" as a library copy.
//
//   TIMBRE_BASE_URL=… USER_EMAIL=… USER_PASSWORD=… VOICE_NAME=… node e2e/voicelibrary.mjs
//
// Normally run by voicelibrary_test.go, which publishes VOICE_NAME from another workspace.
// Screenshot: screenshots/voice-library.png.
import { assert, env, fillSignIn, run } from './flow.mjs';
import { finishOnboarding } from './onboarding.mjs';

const email = env('USER_EMAIL');
const password = env('USER_PASSWORD');
const voiceName = env('VOICE_NAME');
const NEW_NAME = 'My library narrator';

await run('voice-library', async ({ newPage, step, shot }) => {
  const page = await newPage('user');

  await step('sign in and open Voice Library from the sidebar', page, async () => {
    await page.goto('/app/sign-in');
    await fillSignIn(page, email, password);
    await page.waitForURL(/\/app\/(speech-synthesis\/text-to-speech|onboarding)/);
    await finishOnboarding(page);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Voice Library' }).click();
    await page.waitForURL('**/app/voice-library');
    await page.getByRole('heading', { name: 'Voice library' }).waitFor();
  });

  await step('filter: the published voice is listed with a preview that loads', page, async () => {
    await page.getByLabel('Gender').selectOption('female');
    const row = page.getByTestId('library-voice').filter({ hasText: voiceName });
    await row.waitFor();
    const src = await row.getByLabel(`Preview of ${voiceName}`).getAttribute('src');
    const res = await page.request.get(src);
    assert(res.status() === 200 && (await res.body()).length > 1000, `preview ${src} → ${res.status()}`);
    await page.getByLabel('Gender').selectOption('male');
    await row.waitFor({ state: 'detached' });
    await page.getByLabel('Gender').selectOption('');
    await row.waitFor();
  });

  await step('add it under a new name', page, async () => {
    const row = page.getByTestId('library-voice').filter({ hasText: voiceName });
    await row.getByRole('button', { name: `Add ${voiceName}` }).click();
    const dialog = page.getByRole('dialog', { name: 'Add to my voices' });
    await dialog.waitFor();
    await dialog.getByLabel('Name').fill(NEW_NAME);
    const answer = page.waitForResponse((r) => r.url().includes('/v1/voices/add/') && r.request().method() === 'POST');
    await dialog.getByRole('button', { name: 'Add voice' }).click();
    const res = await answer;
    assert(res.status() === 200, `add → ${res.status()}: ${(await res.text()).slice(0, 300)}`);
    await dialog.waitFor({ state: 'hidden' });
    await row.getByText('Added', { exact: true }).waitFor();
    await row.getByText('1 added').waitFor();
    const mine = page.getByTestId('my-voice').filter({ hasText: NEW_NAME });
    await mine.waitFor();
    assert((await mine.textContent()).includes('from the library'), 'the copy is not marked as from the library');
    await shot(page, 'voice-library');
  });
});
