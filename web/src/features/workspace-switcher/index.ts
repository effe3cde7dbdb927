export { WorkspaceSwitcher } from './components/WorkspaceSwitcher';
export { refetchEverything, workspacesQueryKey } from './api';
