// The legacy shop's page views, as the mixed scripts send them: a product page
// (detail, styles and related of one random product, at once, as the browser
// does) or a listing page (GET /products?page=P&count=5).
import { send } from './calls.ts';
import { type Catalogue, lastPage, randomId, randomPage } from './catalogue.ts';
import { product, productsPage, related, styles } from './rest.ts';
import { LISTING_COUNT, PRODUCT_PAGE_SHARE } from './shop-mix.ts';
import { REQUESTS } from './targets.ts';


/** The name tags of the requests a page view sends. */
export const PAGE_REQUESTS = [REQUESTS.product, REQUESTS.styles, REQUESTS.related, REQUESTS.productsPage(LISTING_COUNT)];

/** One page view: a product page or a listing page. */
export function pageView(catalogue: Catalogue, validate: boolean): void {
  if (Math.random() < PRODUCT_PAGE_SHARE) {
    const id = randomId(catalogue);
    send([product(id), styles(id), related(id)], validate);
  } else {
    send([productsPage(randomPage(catalogue, LISTING_COUNT), LISTING_COUNT, lastPage(catalogue, LISTING_COUNT))], validate);
  }
}
