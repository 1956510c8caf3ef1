/** @module The dashboard's page frame: head (own-origin assets only), the navigation, the main region. */
import type { Child } from 'hono/jsx';

/** Navigation links, in order: path under /ui/ and the accessible name the contract fixes. */
export const NAV_LINKS = [
  ['overview', 'Overview'],
  ['servers', 'Servers'],
  ['tools', 'Tools'],
  ['code-tools', 'Code tools'],
  ['playground', 'Playground'],
  ['activity', 'Activity'],
  ['approvals', 'Approvals'],
  ['tokens', 'Tokens'],
  ['scripts', 'Scripts'],
] as const;

/** Where signing in and `/ui/` lead. */
export const LANDING_PAGE = '/ui/overview';

export type Section = (typeof NAV_LINKS)[number][0];

export interface AssetUrls {
  script: string;
  style: string;
}

interface PageProps {
  title: string;
  assets: AssetUrls;
  section?: Section;
  /** The client module that drives this page, and its data (`data-*` on <main>). */
  page: string;
  data?: Record<string, string>;
  /** Approvals pending when the page was made: the "Approvals" link shows them ("Approvals (2)"). */
  pendingApprovals?: number;
  children?: Child;
}

/** A link's text: the fixed name first (its accessible name starts with it), then a count. */
const navLabel = (path: string, label: string, pending: number) =>
  path === 'approvals' && pending > 0 ? `${label} (${pending})` : label;

export function Page({
  title,
  assets,
  section,
  page,
  data = {},
  pendingApprovals = 0,
  children,
}: PageProps) {
  const dataAttributes = Object.fromEntries(
    Object.entries(data).map(([key, value]) => [`data-${key}`, value]),
  );
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · codemux`}</title>
        <link rel="icon" href="data:," />
        <link rel="stylesheet" href={assets.style} />
        <script type="module" src={assets.script} />
      </head>
      <body>
        {section !== undefined && (
          <header class="top">
            <a class="brand" href={LANDING_PAGE}>
              codemux
            </a>
            <nav aria-label="Main">
              <ul>
                {NAV_LINKS.map(([path, label]) => (
                  <li>
                    <a href={`/ui/${path}`} aria-current={path === section ? 'page' : undefined}>
                      {navLabel(path, label, pendingApprovals)}
                    </a>
                  </li>
                ))}
              </ul>
            </nav>
            <form method="post" action="/ui/logout" class="sign-out">
              <button type="submit">Sign out</button>
            </form>
          </header>
        )}
        <main id="main" data-page={page} {...dataAttributes}>
          {children}
          <p role="status" id="status" class="status" />
        </main>
      </body>
    </html>
  );
}
