// The last wall before rendered model text enters the page. The HTML it receives is already
// safe by construction (src/ui/render/markdown-html.ts); this makes sure of it with DOMPurify,
// allowing only the elements and attributes that renderer writes. Answers can echo prompt
// injections from the document, and anything that loads by itself (an image, a background, a
// media source) would send data to another origin with no click: nothing may fetch except
// inline data.
import DOMPurify from "dompurify";

const ALLOWED_TAGS = [
  "p",
  "br",
  "hr",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "blockquote",
  "ul",
  "ol",
  "li",
  "pre",
  "code",
  "span",
  "em",
  "strong",
  "s",
  "del",
  "a",
  "table",
  "thead",
  "tbody",
  "tr",
  "th",
  "td",
  "img",
];
const ALLOWED_ATTR = ["href", "title", "class", "start", "alt", "src", "target", "rel", "referrerpolicy", "aria-hidden"];
const ALLOWED_URI = /^(?:https?:|mailto:|data:image\/(?:png|gif|jpeg|webp);)/i;
const FETCHING_ATTRIBUTES = new Set(["src", "srcset", "poster", "background", "lowsrc", "dynsrc", "data", "xlink:href", "ping"]);
const INLINE_SOURCE = /^\s*data:image\/(?:png|gif|jpeg|webp);/i;

let purifier: ReturnType<typeof DOMPurify> | null = null;

/** A DOMPurify of our own, so these hooks never change how anything else is sanitized. */
function instance(): ReturnType<typeof DOMPurify> {
  if (purifier) return purifier;
  const p = DOMPurify(window);
  p.addHook("uponSanitizeAttribute", (_node, data) => {
    if (FETCHING_ATTRIBUTES.has(data.attrName) && !INLINE_SOURCE.test(data.attrValue)) data.keepAttr = false;
  });
  p.addHook("afterSanitizeAttributes", (node) => {
    if (node.tagName === "A" && node.hasAttribute("href")) {
      node.setAttribute("rel", "noopener noreferrer");
      node.setAttribute("referrerpolicy", "no-referrer");
      node.setAttribute("target", "_blank");
    }
  });
  purifier = p;
  return p;
}

export function sanitizeToFragment(html: string): DocumentFragment {
  return instance().sanitize(html, {
    ALLOWED_TAGS,
    ALLOWED_ATTR,
    ALLOWED_URI_REGEXP: ALLOWED_URI,
    RETURN_DOM_FRAGMENT: true,
  });
}
