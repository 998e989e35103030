// The route tables of the builders' specs: turning spec routes into the golden server's routes, and
// following them from a claim URL as a correct client would. Shared by golden/build.ts and
// golden/diagnosis/build.ts. Builder code: the checkers follow routes their own way.

import { GOLDEN_PORT, type Route } from '../server.js';

/** A route of a spec: a served Route with the document named by key (`src` / `doc`) and a note for the rule text. */
export interface SpecRoute extends Omit<Route, 'file' | 'handler' | 'body' | 'host'> {
  host: string;
  body?: string;
  src?: string;
  doc?: string;
  note?: string;
}

/** A redirect's location with the server's own port for "{port}". */
export const withPort = (location: string): string => location.replace(/\{port\}/g, String(GOLDEN_PORT));

/** The served routes of `specs` (each host and path once); `fileOf` gives a route's file relative to golden/. */
export function routeTable<R extends SpecRoute>(specs: readonly R[], fileOf: (r: R) => string | undefined): Route[] {
  const keys = new Set<string>();
  return specs.map((r) => {
    const k = `${r.host} ${r.path}`;
    if (keys.has(k)) throw new Error(`route ${k} defined twice`);
    keys.add(k);
    const { src: _src, doc: _doc, note: _note, ...rest } = r;
    const route: Route = { ...rest };
    const file = fileOf(r);
    if (file) route.file = file;
    return route;
  });
}

/** Where following a URL ends: at a route that answers (not a redirect), or nowhere (`end` says why). */
export interface Followed<R> {
  /** the answering route; undefined when there is none */
  route?: R;
  /** every route the request went through, the answering one last */
  visited: R[];
  /** one entry per redirect ("302 to ..."), then the reason when no route answers */
  steps: string[];
  /** 404 when no route has the path */
  status?: number;
}

/**
 * Follows `url` through `routes` (at most 10 hops). Port 9 refuses connections; a URL on another port than
 * GOLDEN_PORT has no route. A redirect back to a URL already visited is a loop.
 */
export function followRoutes<R extends SpecRoute>(url: string, routes: readonly R[]): Followed<R> {
  const steps: string[] = [];
  const visited: R[] = [];
  const seen = new Set<string>();
  let u = new URL(url);
  for (let hop = 0; hop < 10; hop++) {
    if (u.port === '9')
      return { visited, steps: [...steps, `connection refused (nothing listens on ${u.hostname}:9)`] };
    const reqPath = u.pathname + u.search;
    const key = `${u.hostname} ${reqPath}`;
    if (seen.has(key)) return { visited, steps: [...steps, `back to ${reqPath} (a redirect loop)`] };
    seen.add(key);
    const r =
      Number(u.port) === GOLDEN_PORT ? routes.find((x) => x.path === reqPath && x.host === u.hostname) : undefined;
    if (!r) return { visited, status: 404, steps: [...steps, '404 (no route)'] };
    visited.push(r);
    if (!r.redirect) return { route: r, visited, steps };
    const loc = withPort(r.redirect.location);
    steps.push(`${r.redirect.status ?? 302} to ${loc}`);
    u = new URL(loc, u);
  }
  return { visited, steps: [...steps, 'too many redirects'] };
}
