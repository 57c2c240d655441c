// The catalogue as the API layers see it. Prices are strings with exactly two
// decimals, straight from Postgres numeric(10,2): they never become floats.

/** What a product says of itself, in every shape of it: the API's, a legacy snapshot's, the simulator's. */
export interface ProductFields {
  name: string;
  slogan: string;
  description: string;
  category: string;
  /** Two decimals, e.g. "140.00". */
  defaultPrice: string;
}

export interface Product extends ProductFields {
  id: number;
  createdAt: Date;
  updatedAt: Date;
  /** Changes at every write of the product, never reused (the products.version sequence): its strong ETag. */
  version: string;
  /** Present when the product was fetched with its styles (and their photos and skus) in one statement. */
  styles?: Style[];
  /**
   * Present (null for a product without styles) when the product was fetched
   * with only the style a card shows: its default style, from the style
   * document's default_style column.
   */
  defaultStyle?: Style | null;
  /** Present when the product was fetched with its features in the same statement. */
  features?: Feature[];
  /** Present when the product was fetched with its related rows' product ids (row order, duplicates kept). */
  relatedIds?: number[];
}

export interface Feature {
  id: number;
  productId: number;
  feature: string;
  value: string | null;
}

export interface Photo {
  url: string;
  thumbnailUrl: string;
}

export interface Sku {
  id: number;
  size: string;
  quantity: number;
}

export interface Style {
  id: number;
  productId: number;
  name: string;
  salePrice: string | null;
  originalPrice: string;
  isDefault: boolean;
  /** Present when the style was fetched with its photos and skus in the same statement. */
  photos?: Photo[];
  skus?: Sku[];
}

export interface PhotoRow extends Photo {
  styleId: number;
}

export interface SkuRow extends Sku {
  styleId: number;
}

export interface Related {
  currentProductId: number;
  relatedProductId: number;
}
