export { OwnerLru } from "./owner-lru.mjs";
