import { client, unwrap, type Schemas } from '@/lib/api';

/** The workspace's members: the members screen lists them, the groups screen picks from them. */
export type WorkspaceMember = Schemas['WorkspaceMemberResponseModel'];

export const membersQueryKey = ['workspace', 'members'] as const;

export const listMembers = () => unwrap(client.GET('/v1/workspace/members'));
