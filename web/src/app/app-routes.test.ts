import type { RouteObject } from 'react-router';
import { describe, expect, it } from 'vitest';
import appRoutes from '../../public/app-routes.json';
import { routes } from './router';

function paths(rs: RouteObject[]): string[] {
  return rs.flatMap((r) => [...(r.path ? [r.path] : []), ...(r.children ? paths(r.children) : [])]);
}

// The server answers 404 for paths outside public/app-routes.json (internal/server/approutes.go),
// so the list must name every page the router has, and nothing else.
describe('app route list for the server', () => {
  it('matches the router', () => {
    const routerPaths = paths(routes).filter((p) => p !== '*' && p !== '/app/*');
    expect([...appRoutes.routes].sort()).toEqual([...new Set(routerPaths)].sort());
  });
});
