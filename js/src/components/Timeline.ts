/** The name the Debug panel draws its run's steps by: the waterfall (see Waterfall.tsx). */
export { Waterfall as Timeline } from "./Waterfall";
