// Voice design in headless Chromium: sign in → /app/voice-lab/design → the honest note is shown →
// an example prompt fills the description (its counter follows) → Generate previews → three
// previews, each with an <audio> player whose mp3 decodes in the page → play the second → pick
// it, name it, save → the saved voice is listed by the API as a generated voice.
//
//   TIMBRE_BASE_URL=… USER_EMAIL=… USER_PASSWORD=… node e2e/voicedesign.mjs
//
// Normally run by voicedesign_test.go. Screenshot: screenshots/voice-design.png.
import { apiFromPage, assert, env, fillSignIn, run } from './flow.mjs';
import { finishOnboarding } from './onboarding.mjs';

const email = env('USER_EMAIL');
const password = env('USER_PASSWORD');

await run('voice-design', async ({ newPage, step, shot }) => {
  const page = await newPage('user');

  await step('sign in and open the voice design page', page, async () => {
    await page.goto('/app/sign-in');
    await fillSignIn(page, email, password);
    await page.waitForURL(/\/app\/(speech-synthesis\/text-to-speech|onboarding)/);
    await finishOnboarding(page);
    await page.goto('/app/voice-lab/design');
    await page.getByRole('heading', { name: 'Design a voice' }).waitFor();
    const note = await page.getByTestId('parametric-note').textContent();
    assert(note.includes('Designed voices are parametric: a base voice shaped in pitch, pace and timbre'), `note: ${note}`);
  });

  await step('an example fills the description; generate three previews', page, async () => {
    await page.getByRole('button', { name: /deep, slow elderly man/ }).click();
    const count = await page.getByTestId('description-count').textContent();
    assert(/^\d+ \/ 1000$/.test(count.trim()) && !count.startsWith('0 '), `counter: ${count}`);
    const answer = page.waitForResponse((r) => r.url().includes('/v1/text-to-voice/design') && r.request().method() === 'POST', { timeout: 45_000 });
    await page.getByRole('button', { name: 'Generate previews' }).click();
    const res = await answer;
    assert(res.status() === 200, `design answered ${res.status()}`);
    await page.getByTestId('voice-preview').nth(2).waitFor();
    assert((await page.getByTestId('voice-preview').count()) === 3, 'not three previews');
  });

  await step('the previews decode and play', page, async () => {
    const seconds = await page.evaluate(async () => {
      const out = [];
      for (const a of document.querySelectorAll('[data-testid="voice-preview"] audio')) {
        const data = await (await fetch(a.src)).arrayBuffer();
        const buf = await new OfflineAudioContext(1, 1, 16000).decodeAudioData(data);
        out.push(buf.duration);
      }
      return out;
    });
    assert(seconds.length === 3 && seconds.every((s) => s > 3), `preview lengths ${seconds}`);
    const played = await page.getByLabel('Play preview 2').evaluate(async (a) => {
      a.muted = true;
      await a.play();
      await new Promise((r) => setTimeout(r, 400));
      return a.currentTime;
    });
    assert(played > 0.1, `preview 2 did not play (${played} s)`);
    return { seconds };
  });

  await step('pick the second preview, name it, save', page, async () => {
    await page.getByLabel(/^Preview 2 ·/).check();
    await page.getByLabel('Voice name').fill('Old Tom');
    await page.getByRole('button', { name: 'Save voice' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved “Old Tom” to your voices.' }).waitFor();
    await shot(page, 'voice-design');
    const list = await apiFromPage(page, 'GET', '/v2/voices?category=generated');
    assert(list.status === 200, `list: ${list.status}`);
    const names = list.json.voices.map((v) => v.name);
    assert(names.length === 1 && names[0] === 'Old Tom', `generated voices: ${names}`);
    return { voice: list.json.voices[0].voice_id, labels: list.json.voices[0].labels };
  });
});
