// Single sign-on (OIDC), in headless Chromium: in a fresh browser a person opens /app/sso, enters
// an email at the workspace's SSO domain, is sent to the identity provider's sign-in page (the
// in-process ssotest provider, on another site: http://localhost:…), approves, and comes back
// to Timbre signed in as a user provisioned into that workspace.
//
//   TIMBRE_BASE_URL=… SSO_EMAIL=… SSO_ISSUER=… WORKSPACE_ID=… WORKSPACE_NAME=… node e2e/sso.mjs
//
// The provider and the workspace's SSO configuration come from workspace_test.go.
// Screenshots: screenshots/sso-provider.png, onboarding-survey.png, onboarding-next.png (the provisioned
// user is new: the onboarding survey comes first) and sso-signed-in.png.
import { assert, env, run, session, startSSO } from './flow.mjs';
import { finishOnboarding } from './onboarding.mjs';

const email = env('SSO_EMAIL');
const issuer = env('SSO_ISSUER');
const workspaceId = env('WORKSPACE_ID');
const workspaceName = env('WORKSPACE_NAME');

await run('sso', async ({ newPage, step, shot }) => {
  const page = await newPage('sso');

  await step("sign-in page → SSO → work email: off to the identity provider's page", page, async () => {
    await startSSO(page, email);
    await page.waitForURL((u) => u.href.startsWith(`${issuer}/authorize`));
    await page.getByRole('heading', { name: 'Test identity provider' }).waitFor();
    const u = new URL(page.url());
    const q = u.searchParams;
    assert(q.get('response_type') === 'code' && q.get('code_challenge_method') === 'S256' && q.get('state') && q.get('nonce'),
      `authorization request ${u.search}`);
    assert(q.get('redirect_uri')?.endsWith('/api/sso/oidc/callback'), `redirect_uri ${q.get('redirect_uri')}`);
    assert((await page.getByLabel('Email').inputValue()) === email, 'the provider prefills the user');
    await shot(page, 'sso-provider');
    return { authorize: `${u.origin}${u.pathname}`, scope: q.get('scope') };
  });

  const signedIn = await step('approve: back in Timbre, signed in as the provisioned user', page, async () => {
    await page.getByRole('button', { name: 'Approve' }).click();
    // A provisioned user is new: the onboarding survey comes first, then the app.
    await page.waitForURL(/\/app\/(speech-synthesis\/text-to-speech|onboarding)/);
    const surveyed = await finishOnboarding(page, {
      onSurvey: (p) => shot(p, 'onboarding-survey'),
      onNext: (p) => shot(p, 'onboarding-next'),
    });
    assert(surveyed, 'the onboarding survey was not shown to the provisioned user');
    if (!page.url().includes('/app/speech-synthesis/text-to-speech')) await page.goto('/app/speech-synthesis/text-to-speech');
    const s = await session(page);
    assert(s.email === email, `session email ${s.email}, want ${email}`);
    assert(s.workspace_id === workspaceId, `session workspace ${s.workspace_id}, want ${workspaceId}`);
    assert(s.email_verified === true, 'the provisioned user is verified');
    const trigger = page.getByRole('button', { name: `Workspace: ${workspaceName}. Switch workspace` });
    await trigger.waitFor();
    const role = (await trigger.textContent()).includes('Editor') ? 'editor' : await trigger.textContent();
    assert(role === 'editor', `switcher role: ${role}`);
    return { user_id: s.user_id, first_name: s.first_name, role };
  });

  await step('screenshot: signed in through SSO', page, async () => {
    await page.getByRole('heading', { name: 'Text to Speech' }).waitFor();
    await shot(page, 'sso-signed-in');
    return signedIn;
  });
});
