// The maple tree's part of the page, loaded on first use (a `profile maple-tree` trace): the
// view, its narration and focus, and the code panel's listings. Kept out of the page's first
// chunk so that opening a vmalloc trace costs nothing more.
import '../views/mapleTree.css';
import { MapleTreeView, type MapleViewOptions } from '../views/mapleTree';
import { registerMapleListings } from './code';
import { mapleFocus, narrateMaple } from './narrate';
import { narrateRfc, registerRfcListings, rfcFocus } from './rfc';

export interface MapleUi {
  view: MapleTreeView;
  narrate: typeof narrateMaple;
  focus: typeof mapleFocus;
  /** A maple-rfc operation's frames (the allocator's, with its maple trees' events inside). */
  narrateRfc: typeof narrateRfc;
  focusRfc: typeof rfcFocus;
}

export function mountMaple(root: HTMLElement, options: MapleViewOptions): MapleUi {
  registerMapleListings();
  registerRfcListings();
  return { view: new MapleTreeView(root, options), narrate: narrateMaple, focus: mapleFocus, narrateRfc, focusRfc: rfcFocus };
}
