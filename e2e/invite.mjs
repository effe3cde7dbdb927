// Invite and roles, in headless Chromium: an admin invites an email as editor from the members
// screen; the invitee reads the mail in the development mailbox, follows the link, signs in and
// accepts; they land in the admin's workspace (the switcher shows it) and, as an editor, see the
// members read-only, no invite/remove/role controls, no webhook or SSO administration, and an
// admin-only API call from their page answers 403.
//
//   TIMBRE_BASE_URL=… ADMIN_EMAIL=… ADMIN_PASSWORD=… INVITEE_EMAIL=… INVITEE_PASSWORD=… node e2e/invite.mjs
//
// The invitee must already have an account (their own workspace); normally run by
// workspace_test.go. Screenshot: screenshots/invite-editor.png.
import { apiFromPage, assert, env, fillSignIn, run, session } from './flow.mjs';
import { finishOnboarding } from './onboarding.mjs';

const adminEmail = env('ADMIN_EMAIL');
const adminPassword = env('ADMIN_PASSWORD');
const inviteeEmail = env('INVITEE_EMAIL');
const inviteePassword = env('INVITEE_PASSWORD');
const workspaceName = `${adminEmail}'s workspace`; // the name a new account's workspace gets

await run('invite', async ({ newPage, step, shot }) => {
  const admin = await newPage('admin');

  const adminSession = await step('admin signs in', admin, async () => {
    await admin.goto('/app/sign-in');
    await fillSignIn(admin, adminEmail, adminPassword);
    await admin.waitForURL(/\/app\/(speech-synthesis\/text-to-speech|onboarding)/);
    await finishOnboarding(admin); // operator-made accounts have no survey: a no-op
    return session(admin);
  });

  await step('admin invites the email as editor from the members screen', admin, async () => {
    await admin.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Members', exact: true }).click();
    await admin.waitForURL('**/app/workspace/members');
    await admin.getByRole('heading', { name: 'Members' }).waitFor();
    await admin.getByTestId(`member-${adminEmail}`).waitFor();
    const seats = (await admin.getByTestId('seats').textContent())?.trim();
    await admin.getByRole('button', { name: 'Invite members' }).click();
    const dialog = admin.getByRole('dialog', { name: 'Invite members' });
    await dialog.waitFor();
    await dialog.getByLabel('Email').fill(inviteeEmail);
    await dialog.getByLabel('Role').selectOption({ label: 'Editor' });
    await dialog.getByRole('button', { name: 'Send invite' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await admin.getByText(`Invitation sent to ${inviteeEmail}.`).waitFor();
    const pending = admin.getByRole('row').filter({ hasText: inviteeEmail });
    await pending.waitFor();
    assert((await pending.textContent()).includes('Editor'), `pending invitation row: ${await pending.textContent()}`);
    return { seatsBefore: seats, seatsAfter: (await admin.getByTestId('seats').textContent())?.trim() };
  });

  const invitee = await newPage('invitee');
  const inviteHref = await step('the invitee finds the invitation in the development mailbox', invitee, async () => {
    await invitee.goto('/app/dev/mailbox');
    await invitee.getByRole('heading', { name: 'Development mailbox' }).waitFor();
    const mail = invitee.locator('article', { hasText: inviteeEmail }).filter({ hasText: "You're invited" }).first();
    await mail.waitFor();
    const link = mail.locator('a[href*="/app/invite?code="]').first();
    await link.waitFor();
    const href = await link.getAttribute('href');
    assert(href && new URL(href, invitee.url()).origin === new URL(invitee.url()).origin, `invite link points elsewhere: ${href}`);
    await link.click();
    return href;
  });

  await step('the invitation page, then sign in to accept', invitee, async () => {
    await invitee.waitForURL('**/app/invite?code=**');
    await invitee.getByRole('heading', { name: `Join ${workspaceName}` }).waitFor();
    assert((await invitee.getByTestId('invite-email').textContent())?.trim() === inviteeEmail, 'invited email shown');
    await invitee.getByRole('link', { name: 'Sign in to accept' }).click();
    await invitee.waitForURL('**/app/sign-in?redirect=**');
    await fillSignIn(invitee, inviteeEmail, inviteePassword);
    // The sign-in honours the redirect back to the invitation (spec §2: /app/invite is listed).
    await invitee.waitForURL('**/app/invite?code=**');
    await invitee.getByRole('button', { name: 'Accept invitation' }).click();
    await invitee.waitForURL(/\/app\/(speech-synthesis\/text-to-speech|onboarding)/);
    await finishOnboarding(invitee);
    await invitee.getByText(`${workspaceName}`).first().waitFor();
    return { href: inviteHref };
  });

  const joined = await step("the invitee is in the admin's workspace; the switcher shows it", invitee, async () => {
    const s = await session(invitee);
    assert(s.email === inviteeEmail, `session email ${s.email}`);
    assert(s.workspace_id === adminSession.workspace_id, `session workspace ${s.workspace_id}, want the admin's ${adminSession.workspace_id}`);
    const trigger = invitee.getByRole('button', { name: `Workspace: ${workspaceName}. Switch workspace` });
    await trigger.waitFor();
    assert((await trigger.textContent()).includes('Editor'), `switcher shows the role: ${await trigger.textContent()}`);
    await trigger.click();
    const items = invitee.getByRole('menuitem');
    await items.first().waitFor();
    const names = (await items.allTextContents()).filter((n) => n !== 'Create workspace');
    assert(names.length === 2, `switcher lists ${names.length} workspaces: ${names.join(' | ')}`);
    assert(names.some((n) => n.includes(workspaceName) && n.includes('(current)')), `current workspace not ticked: ${names.join(' | ')}`);
    assert(names.some((n) => n.includes(`${inviteeEmail}'s workspace`)), `own workspace missing: ${names.join(' | ')}`);
    await invitee.keyboard.press('Escape');
    return { workspaces: names };
  });

  await step('as editor: members read-only, no invite/remove/role controls', invitee, async () => {
    const nav = invitee.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Members', exact: true }).click();
    await invitee.waitForURL('**/app/workspace/members');
    await invitee.getByText('Only workspace admins can invite people or change roles.').waitFor();
    await invitee.getByTestId(`member-${adminEmail}`).waitFor();
    const me = invitee.getByTestId(`member-${inviteeEmail}`);
    await me.waitFor();
    assert((await me.textContent()).includes('Editor'), `own row: ${await me.textContent()}`);
    const counts = {
      inviteButton: await invitee.getByRole('button', { name: 'Invite members' }).count(),
      removeButtons: await invitee.getByRole('button', { name: /^Remove / }).count(),
      lockButtons: await invitee.getByRole('button', { name: /^(Lock|Unlock)$/ }).count(),
      roleSelects: await invitee.getByRole('combobox', { name: /^Role of / }).count(),
      pendingInvitations: await invitee.getByRole('heading', { name: 'Pending invitations' }).count(),
      seats: await invitee.getByTestId('seats').count(),
    };
    for (const [what, n] of Object.entries(counts)) assert(n === 0, `editor sees ${n} × ${what}`);
    // Admin-only navigation is hidden.
    for (const label of ['Webhooks', 'Service accounts', 'Audit log']) {
      assert((await nav.getByRole('link', { name: label }).count()) === 0, `editor's navigation shows ${label}`);
    }
    return { rows: await invitee.locator('[data-testid^="member-"]').count() };
  });

  await step('as editor: no webhook or workspace-security administration', invitee, async () => {
    await invitee.goto('/app/workspace/webhooks');
    await invitee.getByText('Only workspace admins can manage webhooks.', { exact: false }).waitFor();
    assert((await invitee.getByRole('button', { name: /create webhook|add webhook|new webhook/i }).count()) === 0, 'editor sees a webhook create button');
    await invitee.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Workspace security' }).click();
    await invitee.waitForURL('**/app/workspace/security');
    await invitee.getByRole('heading', { name: 'Workspace security' }).waitFor();
    await invitee.getByTestId('opt-out-locked').waitFor();
    for (const label of ['Single sign-on', 'Sign-in policy', 'User auto-provisioning']) {
      assert((await invitee.getByText(label, { exact: true }).count()) === 0, `editor sees the ${label} panel`);
    }
  });

  const refused = await step('as editor: admin-only API calls from the page answer 403', invitee, async () => {
    const ok = await apiFromPage(invitee, 'GET', '/v1/workspace/members');
    assert(ok.status === 200, `GET /v1/workspace/members → ${ok.status}: ${ok.text}`);
    const calls = [
      ['POST', '/v1/workspace/invites/add', { email: 'someone-else@example.com', seat_type: 'workspace_member' }],
      ['GET', '/api/workspace/invites'],
      ['POST', '/v1/workspace/members', { email: inviteeEmail, workspace_seat_type: 'workspace_admin' }],
      ['GET', '/v1/workspace/webhooks'],
      ['GET', '/api/workspace/sso/settings'],
    ];
    const out = {};
    for (const [method, path, body] of calls) {
      const res = await apiFromPage(invitee, method, path, body);
      out[`${method} ${path}`] = res.status;
      assert(res.status === 403, `${method} ${path} as editor → ${res.status}, want 403: ${res.text}`);
    }
    // Nothing changed: still an editor, the uninvited address has no invitation.
    const after = await apiFromPage(invitee, 'GET', '/v1/workspace/members');
    const self = (after.json ?? []).find((m) => m.email === inviteeEmail);
    assert(self?.seat_type === 'workspace_member', `after the refused calls the editor is ${JSON.stringify(self)}`);
    assert(!(after.json ?? []).some((m) => m.email === 'someone-else@example.com'), 'the refused invite made a member');
    return out;
  });

  await step('screenshot: the members screen as the editor sees it', invitee, async () => {
    await invitee.goto('/app/workspace/members');
    await invitee.getByTestId(`member-${inviteeEmail}`).waitFor();
    await shot(invitee, 'invite-editor');
    return { joined: joined.workspaces.length, refused: Object.keys(refused).length };
  });
});
