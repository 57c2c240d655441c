// The in-browser GraphQL IDE (GraphiQL 3), served entirely from this server:
// `GET /graphql` from a browser gets the page (see server.ts), and its scripts
// and styles come from node_modules under /graphql/assets/, never from a CDN.
//
// Asset whitelisting, caching and security headers: src/http/browser-page.ts.
import { addVary } from '../http/http-caching.ts';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { CSS, JS, type PageAsset, assetTags, ownScript, packageAsset, pageShell, registerAssets, sendPage } from '../http/browser-page.ts';

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
// can forbid inline scripts. It POSTs to /graphql on the same origin and sends
// the headers typed in the IDE's headers editor along.
const BOOT_SCRIPT = `'use strict';
(function () {
  var DEFAULT_QUERY = ${JSON.stringify(EXAMPLE_QUERY)};
  var DEFAULT_TABS = ${JSON.stringify([EXAMPLE_QUERY, ...EXAMPLE_TABS])}.map(function (query) { return { query: query }; });
  async function fetcher(params, options) {
    var response = await fetch('/graphql', {
      method: 'POST',
      credentials: 'same-origin',
      headers: Object.assign({}, options && options.headers, {
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
  var root = ReactDOM.createRoot(document.getElementById('graphiql'));
  root.render(React.createElement(GraphiQL, {
    fetcher: fetcher,
    defaultQuery: DEFAULT_QUERY,
    defaultTabs: DEFAULT_TABS,
    defaultEditorToolsVisibility: false,
    shouldPersistHeaders: false,
  }));
})();
`;

let assets: PageAsset[] | undefined;

function ideAssets(): PageAsset[] {
  assets ??= [
    packageAsset('react', 'umd/react.production.min.js', (v) => `react-${v}.production.min.js`, JS, 'script'),
    packageAsset('react-dom', 'umd/react-dom.production.min.js', (v) => `react-dom-${v}.production.min.js`, JS, 'script'),
    packageAsset('graphiql', 'graphiql.min.js', (v) => `graphiql-${v}.min.js`, JS, 'script'),
    packageAsset('graphiql', 'graphiql.min.css', (v) => `graphiql-${v}.min.css`, CSS, 'style'),
    ownScript('ide', BOOT_SCRIPT),
  ];
  return assets;
}

function renderPage(assets: PageAsset[]): string {
  const styles = assetTags(IDE_ASSET_PREFIX, assets.filter((a) => a.role === 'style'));
  const scripts = assetTags(IDE_ASSET_PREFIX, assets.filter((a) => a.role === 'script'));
  return pageShell('GraphiQL · Catalogue API', `${styles}
  <style>html, body, #graphiql { height: 100%; margin: 0; }</style>
${scripts}`, '<div id="graphiql"><noscript>The GraphiQL IDE needs JavaScript. The API itself answers POST /graphql.</noscript></div>');
}

let ideHtml: string | undefined;

/** Sends the IDE page. The GET /graphql route calls this for browsers. */
export function sendIde(reply: FastifyReply): FastifyReply {
  ideHtml ??= renderPage(ideAssets());
  addVary(reply, ['Accept']);
  return sendPage(reply, ideHtml);
}

/** Serves the IDE's whitelisted assets under /graphql/assets/. */
export function registerIde(app: FastifyInstance): void {
  registerAssets(app, IDE_ASSET_PREFIX, ideAssets());
}
