// What the legacy shop's pages send, mixed: a product page (detail, styles and
// related of one random product, at once, as the browser does) or a listing
// page (GET /products?page=P&count=5). RATE counts pages per second.
// Env: see k6/lib/config.ts and docs/load-testing.md.
import { loadScript } from '../lib/script.ts';
import { PAGE_REQUESTS, pageView } from '../lib/shop.ts';

const script = loadScript('mixed', PAGE_REQUESTS, pageView);
export const { options, setup, handleSummary } = script;
export default script.iteration;
