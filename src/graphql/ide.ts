// The in-browser GraphQL IDE (GraphiQL 3), served entirely from this server:
// `GET /graphql` from a browser gets the page (see endpoint.ts), and its
// scripts and styles come from node_modules under /graphql/assets/, never
// from a CDN. Queries and mutations go by POST; subscriptions over graphql-ws
// on the same URL. With the IDE off (GRAPHQL_IDE, by default off where
// introspection is), the browser gets a landing page instead: what this URL
// is, how to send a query, how to turn the IDE on.
//
// Asset whitelisting, caching and security headers: src/http/browser-page.ts.
import crypto from 'node:crypto';
import { addVary } from '../http/http-caching.ts';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { CSS, JS, type PageAsset, assetTags, escapeHtml, ownScript, packageAsset, pageShell, registerAssets, sendPage } from '../http/browser-page.ts';

/** What a browser opening /graphql gets (src/config.ts). */
export interface IdeOptions {
  /** GRAPHQL_IDE: GraphiQL; off: the landing page. */
  enabled: boolean;
  /** GRAPHQL_INTROSPECTION: off, GraphiQL is given no schema (no docs or completion) rather than asking for one it would be refused. */
  introspection: boolean;
}

export const IDE_ASSET_PREFIX = '/graphql/assets/';

/** What the editor shows on a first visit (GraphiQL keeps later edits in localStorage). */
export const EXAMPLE_QUERY = `# Welcome to the catalogue API. Press the run button (or Ctrl-Enter) to send
# this query; open the Docs (book icon, top left) to browse every type and field.
query ProductWithStyles {
  product(id: "1") {
    id
    name
    defaultPrice
    styles {
      name
      salePrice
      photos {
        thumbnailUrl
      }
      skus {
        size
        quantity
      }
    }
  }
}

# A listing with a page of each product's styles and related products, all
# products' pages in one statement per level. Next page: after the last id.
query ListingWithNestedPages {
  products(count: 10) {
    id
    name
    styles(first: 2) {
      id
      name
      photos {
        thumbnailUrl
      }
    }
    related(first: 3) {
      id
      name
    }
  }
}
`;

/** More examples, each in a tab of its own beside the first (browse and search: docs/browse.md). */
export const EXAMPLE_TABS = [
  `# A category page: a filter, a sort order, keyset pages (pass pageInfo.endCursor as after),
# the total and the facet counts beside it.
query CategoryPage {
  productConnection(
    first: 5
    filter: { categories: ["Jackets"], inStock: true, priceMax: "100.00" }
    orderBy: { field: PRICE, direction: ASC }
  ) {
    edges { node { id name defaultPrice } }
    pageInfo { hasNextPage endCursor }
    totalCount
    facets {
      sizes { value count }
      priceBands { min max count }
    }
  }
}
`,
  `# Search: best matches first, the last word as a prefix, typos corrected
# ("searched" shows what was looked for), a snippet of where each matched,
# and facet counts of the matches (estimates for a common word: exact false).
query Search {
  search(query: "jakcet", first: 5) {
    searched
    edges { rank snippet node { id name category } }
    pageInfo { hasNextPage endCursor }
    totalCount
    facets { exact categories { value count } }
  }
}
`,
];

// Starts GraphiQL. A file of its own (not an inline script) so the page's CSP
// can forbid inline scripts. Queries and mutations are POSTed to /graphql on
// the same origin with the headers typed in the IDE's headers editor;
// subscriptions go over graphql-ws to the same URL (ws: or wss: as the page
// was loaded, so it works behind a TLS proxy), those headers sent as
// connection_init's payload (browsers cannot set WebSocket headers; the
// server reads the key from there: subscriptions/graphql-ws.ts).
function bootScript(introspection: boolean): string {
  return `'use strict';
(function () {
  var DEFAULT_QUERY = ${JSON.stringify(EXAMPLE_QUERY)};
  var DEFAULT_TABS = ${JSON.stringify([EXAMPLE_QUERY, ...EXAMPLE_TABS])}.map(function (query) { return { query: query }; });
  var ENDPOINT = new URL('/graphql', location.href);
  async function post(params, headers) {
    var response = await fetch(ENDPOINT.href, {
      method: 'POST',
      credentials: 'same-origin',
      headers: Object.assign({}, headers, {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json, application/json',
      }),
      body: JSON.stringify(params),
    });
    var text = await response.text();
    try {
      return JSON.parse(text);
    } catch (error) {
      return { errors: [{ message: 'HTTP ' + response.status + ' ' + response.statusText + ': ' + text.slice(0, 1000) }] };
    }
  }
  // One graphql-ws client per set of headers: a key typed later gets a new connection.
  var live;
  function liveClient(headers) {
    var key = JSON.stringify(headers);
    if (live && live.key === key) return live.client;
    if (live) live.client.dispose();
    var url = new URL(ENDPOINT.href);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    live = { key: key, client: graphqlWs.createClient({ url: url.href, connectionParams: headers }) };
    return live.client;
  }
  function subscribe(params, headers) {
    return {
      subscribe: function (sink) {
        var stop = liveClient(headers).subscribe(params, {
          next: function (result) { sink.next(result); },
          complete: function () { sink.complete(); },
          error: function (error) {
            // The server's error message for this subscription, or the connection's close.
            if (Array.isArray(error)) {
              sink.next({ errors: error });
              return sink.complete();
            }
            sink.error(error instanceof Error ? error
              : new Error('The WebSocket closed' + (error && error.code ? ': ' + error.code + ' ' + (error.reason || '') : '')));
          },
        });
        return { unsubscribe: stop };
      },
    };
  }
  function isSubscription(params, options) {
    var document = options && options.documentAST;
    if (!document) return false;
    var operation = GraphiQL.GraphQL.getOperationAST(document, params.operationName || undefined);
    return Boolean(operation && operation.operation === 'subscription');
  }
  function fetcher(params, options) {
    var headers = (options && options.headers) || {};
    return isSubscription(params, options) ? subscribe(params, headers) : post(params, headers);
  }
  var root = ReactDOM.createRoot(document.getElementById('graphiql'));
  root.render(React.createElement(GraphiQL, Object.assign({
    fetcher: fetcher,
    defaultQuery: DEFAULT_QUERY,
    defaultTabs: DEFAULT_TABS,
    defaultEditorToolsVisibility: false,
    shouldPersistHeaders: false,
  }, ${introspection ? '{}' : '{ schema: null }'})));
})();
`;
}

function ideAssets(options: IdeOptions): PageAsset[] {
  return [
    packageAsset('react', 'umd/react.production.min.js', (v) => `react-${v}.production.min.js`, JS, 'script'),
    packageAsset('react-dom', 'umd/react-dom.production.min.js', (v) => `react-dom-${v}.production.min.js`, JS, 'script'),
    packageAsset('graphiql', 'graphiql.min.js', (v) => `graphiql-${v}.min.js`, JS, 'script'),
    packageAsset('graphiql', 'graphiql.min.css', (v) => `graphiql-${v}.min.css`, CSS, 'style'),
    packageAsset('graphql-ws', 'umd/graphql-ws.min.js', (v) => `graphql-ws-${v}.min.js`, JS, 'script'),
    ownScript('ide', bootScript(options.introspection)),
  ];
}

function idePage(assets: PageAsset[]): string {
  const styles = assetTags(IDE_ASSET_PREFIX, assets.filter((a) => a.role === 'style'));
  const scripts = assetTags(IDE_ASSET_PREFIX, assets.filter((a) => a.role === 'script'));
  return pageShell('GraphiQL · Catalogue API', `${styles}
  <style>html, body, #graphiql { height: 100%; margin: 0; }</style>
${scripts}`, '<div id="graphiql"><noscript>The GraphiQL IDE needs JavaScript. The API itself answers POST /graphql.</noscript></div>');
}

/** The landing page's query, sent as text and then by its hash alone (automatic persisted queries). */
export const LANDING_QUERY = '{ product(id: "1") { id name defaultPrice } }';

// Writes this server's origin (as the browser reached it) into the examples.
const LANDING_SCRIPT = `'use strict';
document.querySelectorAll('.origin').forEach(function (element) { element.textContent = location.origin; });
`;

function landingPage(assets: PageAsset[]): string {
  const hash = crypto.createHash('sha256').update(LANDING_QUERY).digest('hex');
  const post = JSON.stringify({ query: LANDING_QUERY });
  const register = JSON.stringify({ query: LANDING_QUERY, extensions: { persistedQuery: { version: 1, sha256Hash: hash } } });
  const persisted = JSON.stringify({ persistedQuery: { version: 1, sha256Hash: hash } });
  const origin = '<span class="origin">https://api.example.com</span>';
  const code = (text: string) => `<pre><code>${escapeHtml(text).replaceAll('ORIGIN', origin)}</code></pre>`;
  const body = `<main>
  <h1>Catalogue API: GraphQL</h1>
  <p>This URL is the product catalogue's GraphQL endpoint. It answers queries and mutations by <code>POST</code> (a JSON body) and queries by <code>GET</code>; subscriptions run over graphql-ws on this same URL (a WebSocket) and over Server-Sent Events at <code>/graphql/stream</code>. The in-browser IDE is off on this server.</p>
  <h2>Send a query</h2>
  ${code(`curl -s ORIGIN/graphql -H 'content-type: application/json' \\\n  -d '${post}'`)}
  <p>A persisted query: sent once with its SHA-256 hash, then by the hash alone in a <code>GET</code> that browsers and CDNs can cache:</p>
  ${code(`curl -s ORIGIN/graphql -H 'content-type: application/json' \\\n  -d '${register}'\ncurl -s -G ORIGIN/graphql --data-urlencode 'extensions=${persisted}'`)}
  <h2>API keys</h2>
  <p>Mutations need an API key; reads take one optionally, unless the server requires one (<code>API_KEYS_FOR_READS=required</code>). Send it as a header, <code>-H "x-api-key: $KEY"</code> or <code>-H "Authorization: Bearer $KEY"</code>, or in graphql-ws's <code>connection_init</code> payload. The operator creates keys with <code>npm run keys -- create --name &lt;client&gt;</code>.</p>
  <h2>Turn the IDE on</h2>
  <p>Set <code>GRAPHQL_IDE=on</code> to serve GraphiQL here (it runs queries, mutations and subscriptions), and <code>GRAPHQL_INTROSPECTION=on</code> for its documentation explorer and completion (introspection on turns the IDE on too, unless <code>GRAPHQL_IDE=off</code>). Both are on by default only with <code>NODE_ENV=development</code>; see <code>docs/configuration.md</code>.</p>
  <p>The legacy REST API is described at <a href="/docs">/docs</a> (<a href="/openapi.json">/openapi.json</a>).</p>
</main>`;
  return pageShell('GraphQL · Catalogue API', `  <style>
    body { font: 16px/1.5 system-ui, sans-serif; margin: 0 auto; max-width: 52rem; padding: 1rem 1.5rem; color: #1b1f24; }
    pre { background: #f3f4f6; padding: 0.75rem 1rem; overflow-x: auto; border-radius: 4px; }
    code { font: 0.9em ui-monospace, monospace; }
  </style>
${assetTags(IDE_ASSET_PREFIX, assets)}`, body);
}

/**
 * Serves the page's whitelisted assets under /graphql/assets/; returns what
 * sends the page itself (GraphiQL or the landing page). The GET /graphql
 * route calls it for browsers.
 */
export function registerIde(app: FastifyInstance, options: IdeOptions): (reply: FastifyReply) => FastifyReply {
  const assets = options.enabled ? ideAssets(options) : [ownScript('landing', LANDING_SCRIPT)];
  registerAssets(app, IDE_ASSET_PREFIX, assets);
  const html = options.enabled ? idePage(assets) : landingPage(assets);
  return (reply) => {
    addVary(reply, ['Accept']);
    return sendPage(reply, html);
  };
}
