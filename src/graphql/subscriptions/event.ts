// What a subscription's root field resolves from: the product an event is
// about. The live hub (hub.ts) executes a subscriber's selection on it.

/** The root value of one `productChanged` event: its `ProductChange` is resolved from it. */
export interface ProductChangeEvent {
  id: number;
}
