/**
 * Whether the view's kernel is gone (kernel/liveness.ts), for parts drawn deep inside the
 * transcript: a tool row's status keeps its colour only while a live kernel can move it.
 */
import { createContext } from "preact";
import { useContext } from "preact/hooks";

export const GoneContext = createContext(false);

/** `true` once the kernel of the view drawing this is gone. */
export function useGone(): boolean {
  return useContext(GoneContext);
}
