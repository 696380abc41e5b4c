export { Lru } from "./lru";
export { OwnerLru } from "./owner-lru.mjs";
