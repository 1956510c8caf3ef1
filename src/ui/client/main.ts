/** @module The dashboard's client entry: runs the module of the page the server rendered (<main data-page>). */
import { wireCopyButtons } from './copy.ts';
import { say } from './dom.ts';
import { activityPage, activityRecordPage } from './pages/activity.ts';
import { approvalsPage } from './pages/approvals.ts';
import { codeToolPage } from './pages/code-tool.ts';
import { codeToolsPage } from './pages/code-tools.ts';
import { overviewPage } from './pages/overview.ts';
import { playgroundPage } from './pages/playground.ts';
import { scriptPage } from './pages/script.ts';
import { scriptsPage } from './pages/scripts.ts';
import { serverPage, serversPage } from './pages/servers.ts';
import { tokensPage } from './pages/tokens.ts';
import { toolPage } from './pages/tool.ts';
import { toolsPage } from './pages/tools.ts';

const PAGES: Record<string, (main: HTMLElement) => void | Promise<void>> = {
  overview: overviewPage,
  servers: serversPage,
  server: serverPage,
  tools: toolsPage,
  tool: toolPage,
  'code-tools': codeToolsPage,
  'code-tool': codeToolPage,
  playground: playgroundPage,
  activity: activityPage,
  'activity-record': activityRecordPage,
  approvals: approvalsPage,
  tokens: tokensPage,
  scripts: scriptsPage,
  script: scriptPage,
};

wireCopyButtons(document);
const main = document.getElementById('main');
const run = main ? PAGES[main.dataset.page ?? ''] : undefined;
if (main && run) {
  Promise.resolve(run(main))
    .then(() => main.setAttribute('data-ready', 'true'))
    .catch((error: unknown) => say(`The page failed: ${(error as Error).message}`, true));
}
