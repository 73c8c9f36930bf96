/**
 * "Load image" in formatted text: a click asks first, showing the full address the image
 * would come from, and only a second, explicit click loads it. Addresses the view may not
 * fetch (lib/image-address.ts) have no button at all; the address is checked again here.
 * The markup is marked's (inserted as HTML), so this works on the DOM directly.
 */
import { imageAddress } from "../lib/image-address";
import { markerText, markerTitle, segments } from "../lib/unicode";
import "./load-image.css";

const ASK = "pp-image-ask";
/** Each open question's "Load image" button. */
const panels = new WeakMap<Element, HTMLElement>();

/** The address with each hidden character shown as a marker. */
function revealedAddress(doc: Document, href: string): HTMLElement {
  const code = doc.createElement("code");
  code.className = "pp-image-address";
  code.setAttribute("data-testid", "pp-image-address");
  for (const part of segments(href)) {
    if (part.kind === "text") {
      code.append(part.text);
      continue;
    }
    const marker = doc.createElement("span");
    marker.className = "pp-hidden-char";
    marker.setAttribute("data-testid", "pp-hidden-char");
    marker.setAttribute("title", markerTitle(part));
    marker.textContent = markerText(part);
    code.append(marker);
  }
  return code;
}

function button(doc: Document, label: string, pp: string, quiet: boolean): HTMLButtonElement {
  const b = doc.createElement("button");
  b.type = "button";
  b.className = quiet ? "pp-button pp-button-quiet" : "pp-button";
  b.setAttribute("data-pp", pp);
  b.setAttribute("data-testid", `pp-${pp}`);
  b.textContent = label;
  return b;
}

/** The question under an image, placed outside any link so that no click in it follows one. */
function ask(load: HTMLElement, href: string): void {
  const doc = load.ownerDocument;
  const image = load.closest('[data-pp="image"]') ?? load;
  const after = image.closest("a") ?? image;
  const panel = doc.createElement("span");
  panel.className = ASK;
  panel.setAttribute("role", "group");
  panel.setAttribute("aria-label", "Load this image?");
  panel.setAttribute("data-testid", "pp-image-ask");
  const question = doc.createElement("span");
  question.textContent = "Load this image? Your browser will fetch it from this address, which then sees your IP address:";
  const buttons = doc.createElement("span");
  buttons.className = "pp-image-ask-buttons";
  const confirm = button(doc, "Load from this address", "image-confirm", false);
  const cancel = button(doc, "Cancel", "image-cancel", true);
  buttons.append(confirm, " ", cancel);
  panel.append(question, revealedAddress(doc, href), buttons);
  after.after(panel);
  load.hidden = true;
  panels.set(panel, load);
  cancel.focus();
}

function close(panel: Element, loaded: boolean): void {
  const load = panels.get(panel);
  panel.remove();
  if (!load) return;
  if (!loaded) {
    load.hidden = false;
    load.focus();
    return;
  }
  const src = load.getAttribute("data-src") ?? "";
  const address = imageAddress(src);
  if (!address.ok) return;
  const img = load.ownerDocument.createElement("img");
  img.referrerPolicy = "no-referrer";
  img.decoding = "async";
  img.className = "pp-loaded-image";
  img.alt = load.getAttribute("data-alt") ?? "";
  img.src = address.href;
  load.replaceWith(img);
}

/** Clicks in formatted text: "Load image", then its confirmation or cancel. */
export function onImageClick(event: MouseEvent): void {
  const target = event.target as Element | null;
  const load = target?.closest?.('button[data-pp="load-image"]') as HTMLElement | null | undefined;
  if (load) {
    // The button may sit inside a link: the click is the button's alone.
    event.preventDefault();
    const address = imageAddress(load.getAttribute("data-src") ?? "");
    if (address.ok && !load.hidden) ask(load, address.href);
    return;
  }
  const panel = target?.closest?.(`.${ASK}`);
  if (!panel) return;
  if (target?.closest('[data-pp="image-cancel"]')) close(panel, false);
  // The second click of a double click on "Load image" is not a decision.
  else if (target?.closest('[data-pp="image-confirm"]') && event.detail <= 1) close(panel, true);
}

/** A middle click on "Load image" inside a link would open the link. */
export function onImageAuxClick(event: MouseEvent): void {
  if ((event.target as Element | null)?.closest?.('button[data-pp="load-image"]')) event.preventDefault();
}

/** Escape in the question leaves the image unloaded. */
export function onImageKey(event: KeyboardEvent): void {
  if (event.key !== "Escape") return;
  const panel = (event.target as Element | null)?.closest?.(`.${ASK}`);
  if (!panel) return;
  event.preventDefault();
  event.stopPropagation();
  close(panel, false);
}
