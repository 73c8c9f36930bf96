/** The name the Debug panel draws its run's steps by: the waterfall (see Waterfall.ts). */
export { Waterfall as Timeline } from "./Waterfall";
