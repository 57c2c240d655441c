// The styles answer written out directly is the legacy shape's JSON, byte for
// byte, whatever the styles hold.
import { describe, expect, it } from 'vitest';
import type { Style } from '../../src/catalog/model/types.ts';
import { productStyles, productStylesJson } from '../../src/rest/shapes.ts';

const style = (id: number, fields: Partial<Style> = {}): Style => ({
  id, productId: 7, name: `Style ${id}`, salePrice: null, originalPrice: '140.00', isDefault: false,
  photos: [{ url: `https://img.example/${id}.jpg`, thumbnailUrl: `https://img.example/${id}-t.jpg` }],
  skus: [{ id: id * 10, size: 'S', quantity: 3 }, { id: id * 10 + 1, size: 'M', quantity: 0 }],
  ...fields,
});

const cases: [string, Style[]][] = [
  ['no styles', []],
  ['styles with photos and skus', [style(1, { isDefault: true, salePrice: '99.50' }), style(2)]],
  ['no photos, no skus', [style(3, { photos: [], skus: [] })]],
  ['photos and skus absent', [style(4, { photos: undefined, skus: undefined })]],
  ['null photo urls', [style(5, { photos: [{ url: null as unknown as string, thumbnailUrl: null as unknown as string }] })]],
  ['text needing escapes', [style(6, { name: 'Quote " back\\slash \u0001 tab\t é 😀 lone \ud800', skus: [{ id: 1, size: '"XL"\n', quantity: 1 }] })]],
  ['skus out of id order', [style(7, { skus: [{ id: 72, size: 'L', quantity: 1 }, { id: 71, size: 'S', quantity: 2 }] })]],
  ['repeated sku ids', [style(8, { skus: [{ id: 80, size: 'L', quantity: 1 }, { id: 80, size: 'S', quantity: 2 }] })]],
  ['negative sku ids', [style(9, { skus: [{ id: -2, size: 'L', quantity: 1 }, { id: 5, size: 'S', quantity: 2 }] })]],
];

describe('productStylesJson', () => {
  for (const emptyPlaceholders of [true, false]) {
    for (const [name, styles] of cases) {
      it(`is JSON.stringify(productStyles(...)): ${name}, placeholders ${emptyPlaceholders ? 'on' : 'off'}`, () => {
        const options = { campus: 'hr-rfp', emptyPlaceholders };
        const json = productStylesJson(7, styles, options);
        expect(json).toBe(JSON.stringify(productStyles(7, styles, options)));
        expect(JSON.parse(json)).toEqual(productStyles(7, styles, options));
      });
    }
  }
});
