import * as DropdownMenu from '@radix-ui/react-dropdown-menu';
import * as RadixDialog from '@radix-ui/react-dialog';
import { useEffect, useState, type ReactNode } from 'react';
import { NavLink, Outlet, useLocation } from 'react-router';
import { cn } from '@/components/cn';
import {
  ChartIcon,
  CloseIcon,
  KeyIcon,
  LogOutIcon,
  MenuIcon,
  MoonIcon,
  SearchIcon,
  ShieldIcon,
  SpeechIcon,
  SunIcon,
  TranscriptIcon,
  UserIcon,
  BotIcon,
  GroupIcon,
  IsolatorIcon,
  SoundIcon,
  MusicIcon,
  MicIcon,
  ListIcon,
  LockIcon,
  UsersIcon,
  WebhookIcon,
} from '@/components/icons';
import { Logo } from '@/components/Logo';
import { GlobalPlayer } from '@/components/player/GlobalPlayer';
import { DUTIES, useWorkspaceAccess, useWorkspaceRole, type Duty } from '@/lib/access';
import { useSession, useSignOut } from '@/lib/session';
import { PlayerFeedback } from '@/features/history';
import { NotificationsBell } from '@/features/notifications';
import { ChecklistCard } from '@/features/onboarding';
import { UsageMeter } from '@/features/usage';
import { VoiceSafetyDialogs } from '@/features/voice-safety';
import { WorkspaceSwitcher } from '@/features/workspace-switcher';
import { useTheme } from '@/lib/theme';
import { AccountOverlays } from './AccountOverlays';

interface NavItem {
  to: string;
  label: string;
  icon: ReactNode;
  match?: string[];
  /** Match the paths exactly (not their sub-paths). */
  exact?: boolean;
  /** Shown to workspace admins only… */
  adminOnly?: boolean;
  /** …or also to members whose groups delegate this admin duty to them. */
  duty?: Duty;
  /** A page the server serves outside the app (a full page load, not a client route). */
  server?: boolean;
}

const NAV: Array<{ heading?: string; items: NavItem[] }> = [
  {
    items: [
      {
        to: '/app/speech-synthesis/text-to-speech',
        label: 'Text to Speech',
        icon: <SpeechIcon size={16} />,
      },
      { to: '/app/speech-synthesis/speech-to-speech', label: 'Speech to Speech', icon: <MicIcon size={16} /> },
      { to: '/app/ai-classifier', label: 'AI Speech Classifier', icon: <SearchIcon size={16} /> },
      { to: '/app/speech-to-text', label: 'Speech to Text', icon: <TranscriptIcon size={16} /> },
      { to: '/app/voice-isolator', label: 'Voice Isolator', icon: <IsolatorIcon size={16} /> },
      { to: '/app/pronunciation-dictionaries', label: 'Pronunciation', icon: <ListIcon size={16} /> },
      { to: '/app/sound-effects/generate', label: 'Sound Effects', icon: <SoundIcon size={16} />, match: ['/app/sound-effects'] },
      { to: '/app/music', label: 'Music', icon: <MusicIcon size={16} /> },
      { to: '/app/voice-lab', label: 'Voice Lab', icon: <MicIcon size={16} /> },
      { to: '/app/voice-library', label: 'Voice Library', icon: <SearchIcon size={16} /> },
    ],
  },
  {
    heading: 'Developers',
    items: [
      {
        to: '/app/settings/api-keys',
        label: 'API keys',
        icon: <KeyIcon size={16} />,
        match: ['/app/settings/api-keys', '/app/developers/api-keys'],
      },
      // The API reference the server renders from /openapi.json.
      { to: '/docs', label: 'API reference', icon: <ListIcon size={16} />, server: true },
    ],
  },
  {
    heading: 'Workspace',
    items: [
      { to: '/app/workspace/members', label: 'Members', icon: <UsersIcon size={16} />, match: ['/app/workspace/members', '/app/settings/workspace-invites'] },
      { to: '/app/workspace/groups', label: 'Groups', icon: <GroupIcon size={16} /> },
      { to: '/app/workspace/service-accounts', label: 'Service accounts', icon: <BotIcon size={16} />, adminOnly: true, duty: DUTIES.serviceAccounts },
      {
        to: '/app/workspace/webhooks',
        label: 'Webhooks',
        icon: <WebhookIcon size={16} />,
        match: ['/app/workspace/webhooks', '/app/developers/webhooks', '/app/settings/webhooks'],
        adminOnly: true,
        duty: DUTIES.webhooks,
      },
      { to: '/app/workspace/security', label: 'Workspace security', icon: <LockIcon size={16} /> },
      { to: '/app/workspace/audit-log', label: 'Audit log', icon: <ListIcon size={16} />, adminOnly: true, duty: DUTIES.auditLog },
    ],
  },
  {
    heading: 'Account',
    items: [
      { to: '/app/usage', label: 'Usage', icon: <ChartIcon size={16} />, match: ['/app/usage', '/app/usage/workspace', '/app/developers/usage'] },
      { to: '/app/settings', label: 'Settings', icon: <UserIcon size={16} />, exact: true },
      { to: '/app/settings/security', label: 'Security', icon: <ShieldIcon size={16} /> },
    ],
  },
];

function ThemeToggle({ className }: { className?: string }) {
  const { theme, toggle } = useTheme();
  return (
    <button
      type="button"
      onClick={toggle}
      aria-label={theme === 'dark' ? 'Switch to light theme' : 'Switch to dark theme'}
      className={cn(
        'flex size-9 cursor-pointer items-center justify-center rounded-lg text-gray-600 hover:bg-gray-100 dark:text-gray-300 dark:hover:bg-gray-800',
        className,
      )}
    >
      {theme === 'dark' ? <SunIcon size={16} /> : <MoonIcon size={16} />}
    </button>
  );
}

function UserMenu() {
  const session = useSession();
  const signOut = useSignOut();
  const { theme, toggle } = useTheme();
  const email = session.data?.email ?? '';
  const name = session.data?.first_name || email;
  return (
    <DropdownMenu.Root>
      <DropdownMenu.Trigger
        aria-label="User menu"
        className="flex w-full min-w-0 cursor-pointer items-center gap-3 rounded-lg p-2 text-left hover:bg-gray-100 dark:hover:bg-gray-800"
      >
        <span className="flex size-8 shrink-0 items-center justify-center rounded-full bg-gradient-to-br from-indigo-500 to-fuchsia-500 text-sm font-semibold text-white">
          {(name || '?').slice(0, 1).toUpperCase()}
        </span>
        <span className="min-w-0 flex-1">
          <span className="block truncate text-sm font-medium">{name}</span>
          {session.data?.first_name && <span className="block truncate text-xs text-gray-500">{email}</span>}
        </span>
      </DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content
          side="top"
          align="start"
          sideOffset={6}
          className="z-50 min-w-56 rounded-xl border border-gray-200 bg-white p-1 text-sm shadow-lg dark:border-gray-800 dark:bg-gray-900 dark:text-gray-100"
        >
          <DropdownMenu.Label className="truncate px-3 py-2 text-xs text-gray-500">{email}</DropdownMenu.Label>
          <DropdownMenu.Separator className="my-1 h-px bg-gray-100 dark:bg-gray-800" />
          <DropdownMenu.Item
            onSelect={(e) => {
              e.preventDefault();
              toggle();
            }}
            className="flex cursor-pointer items-center gap-2 rounded-lg px-3 py-2 outline-none data-highlighted:bg-gray-100 dark:data-highlighted:bg-gray-800"
          >
            {theme === 'dark' ? <SunIcon size={15} /> : <MoonIcon size={15} />}
            {theme === 'dark' ? 'Light theme' : 'Dark theme'}
          </DropdownMenu.Item>
          <DropdownMenu.Item
            onSelect={() => signOut()}
            className="flex cursor-pointer items-center gap-2 rounded-lg px-3 py-2 text-red-600 outline-none data-highlighted:bg-red-50 dark:text-red-400 dark:data-highlighted:bg-red-950"
          >
            <LogOutIcon size={15} />
            Sign out
          </DropdownMenu.Item>
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}

function SidebarContent({ closeButton }: { closeButton?: ReactNode }) {
  const { pathname } = useLocation();
  const { isAdmin } = useWorkspaceRole();
  const access = useWorkspaceAccess();
  // Admins see every screen; editors see an admin screen when a group delegates its duty to them.
  const visible = (item: NavItem) => !item.adminOnly || isAdmin || (item.duty !== undefined && access.holds(item.duty));
  return (
    <div className="flex h-full flex-col">
      <div className="flex h-16 items-center justify-between px-4">
        <NavLink to="/app/speech-synthesis/text-to-speech" aria-label="Timbre home">
          <Logo />
        </NavLink>
        <div className="flex items-center gap-1">
          <NotificationsBell />
          <ThemeToggle />
          {closeButton}
        </div>
      </div>
      <div className="px-3 pb-2">
        <WorkspaceSwitcher />
      </div>
      <nav aria-label="Main" className="flex-1 space-y-6 overflow-y-auto px-3 py-2">
        {NAV.map((group, i) => (
          <div key={i}>
            {group.heading && (
              <p className="mb-1 px-3 text-xs font-medium tracking-wide text-gray-500 uppercase">{group.heading}</p>
            )}
            <ul className="space-y-0.5">
              {group.items.filter(visible).map((item) => {
                const active = (item.match ?? [item.to]).some(
                  (m) => pathname === m || (!item.exact && pathname.startsWith(`${m}/`)),
                );
                if (item.server) {
                  return (
                    <li key={item.to}>
                      <a
                        href={item.to}
                        className="flex items-center gap-3 rounded-lg px-3 py-2 text-sm font-medium text-gray-600 transition-colors hover:bg-gray-50 hover:text-gray-900 dark:text-gray-400 dark:hover:bg-gray-800/60 dark:hover:text-gray-100"
                      >
                        {item.icon}
                        {item.label}
                      </a>
                    </li>
                  );
                }
                return (
                  <li key={item.to}>
                    <NavLink
                      to={item.to}
                      aria-current={active ? 'page' : undefined}
                      className={cn(
                        'flex items-center gap-3 rounded-lg px-3 py-2 text-sm font-medium transition-colors',
                        active
                          ? 'bg-gray-100 text-gray-900 dark:bg-gray-800 dark:text-white'
                          : 'text-gray-600 hover:bg-gray-50 hover:text-gray-900 dark:text-gray-400 dark:hover:bg-gray-800/60 dark:hover:text-gray-100',
                      )}
                    >
                      {item.icon}
                      {item.label}
                    </NavLink>
                  </li>
                );
              })}
            </ul>
          </div>
        ))}
      </nav>
      <div className="space-y-2 border-t border-gray-200 p-3 dark:border-gray-800">
        <ChecklistCard />
        <UsageMeter />
        <UserMenu />
      </div>
    </div>
  );
}

/** Signed-in app shell: sidebar (drawer on small screens), content, global player. */
export function AppShell() {
  const [drawerOpen, setDrawerOpen] = useState(false);
  const { pathname } = useLocation();
  useEffect(() => setDrawerOpen(false), [pathname]);

  return (
    <div className="flex min-h-screen bg-white dark:bg-gray-950">
      <aside className="sticky top-0 hidden h-screen w-64 shrink-0 border-r border-gray-200 bg-gray-50/60 pb-[var(--player-offset,0px)] md:block dark:border-gray-800 dark:bg-gray-900/40">
        <SidebarContent />
      </aside>

      <RadixDialog.Root open={drawerOpen} onOpenChange={setDrawerOpen}>
        <RadixDialog.Portal>
          <RadixDialog.Overlay className="fixed inset-0 z-50 bg-black/40 md:hidden" />
          <RadixDialog.Content
            aria-describedby={undefined}
            className="fixed inset-y-0 left-0 z-50 w-72 max-w-[85vw] bg-white shadow-xl md:hidden dark:bg-gray-950"
          >
            <RadixDialog.Title className="sr-only">Navigation</RadixDialog.Title>
            <SidebarContent
              closeButton={
                <RadixDialog.Close
                  aria-label="Close navigation"
                  className="flex size-9 cursor-pointer items-center justify-center rounded-lg text-gray-600 hover:bg-gray-100 dark:text-gray-300 dark:hover:bg-gray-800"
                >
                  <CloseIcon size={16} />
                </RadixDialog.Close>
              }
            />
          </RadixDialog.Content>
        </RadixDialog.Portal>
      </RadixDialog.Root>

      <div className="flex min-w-0 flex-1 flex-col">
        <header className="sticky top-0 z-30 flex h-14 items-center gap-3 border-b border-gray-200 bg-white/90 px-4 backdrop-blur md:hidden dark:border-gray-800 dark:bg-gray-950/90">
          <button
            type="button"
            onClick={() => setDrawerOpen(true)}
            aria-label="Open navigation"
            className="flex size-9 cursor-pointer items-center justify-center rounded-lg hover:bg-gray-100 dark:hover:bg-gray-800"
          >
            <MenuIcon />
          </button>
          <Logo />
        </header>
        <main id="main" className="flex-1 pb-[var(--player-offset,0px)]">
          <Outlet />
        </main>
      </div>
      <GlobalPlayer feedback={<PlayerFeedback />} />
      <AccountOverlays />
      {/* Opens the voice-blocked or captcha dialog wherever the user is when a voice is newly flagged (spec §4). */}
      <VoiceSafetyDialogs />
    </div>
  );
}
