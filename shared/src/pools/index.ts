export { OwnerLru } from "./owner-lru";
