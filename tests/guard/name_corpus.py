"""A corpus of control shapes for the accessible-name tests: each snippet holds one
element marked ``data-t`` (its key is filled in), whose name click_labels.js must compute
exactly as Chrome's accessibility tree does. Chrome is the oracle: the names are asked of
it at test time (tests/guard/test_click_labels.py), never written down here."""

from __future__ import annotations

# A real image: Chrome exposes no image map (and no <area>) over an image that failed.
IMG = ("data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='50' height='50'%3E"
       "%3Crect width='50' height='50'/%3E%3C/svg%3E")

CORPUS: list[tuple[str, str]] = [
    ("role-first-known-token", '<div data-t role="fancy button">Go</div>'),
    ("role-two-known-tokens", '<div data-t role="link button" tabindex="0">Both</div>'),
    ("internals-role", '<x-internals data-host></x-internals>'),
    ('text', '<button data-t>Proceed to submission</button>'),
    ('aria-label', '<button data-t aria-label="Pay now">x</button>'),
    ('labelledby-two',
     '<span id="lb1">Send</span><span id="lb2">filing</span><button data-t '
     'aria-labelledby="lb1 lb2">ignored</button>'),
    ('labelledby-chain',
     '<span id="lc1" aria-labelledby="lc2">outer</span><span id="lc2">inner</span>'
     '<button data-t aria-labelledby="lc1">x</button>'),
    ('labelledby-hidden',
     '<span id="lh1" style="display:none">Hidden name</span><button data-t '
     'aria-labelledby="lh1">x</button>'),
    ('labelledby-self',
     '<button data-t id="ls1" aria-labelledby="ls1 ls2">Delete</button><span id="ls2">'
     'file</span>'),
    ('labelledby-hidden-part',
     '<div id="lp1">Pay <span style="display:none">secretly</span> now</div><button '
     'data-t aria-labelledby="lp1">x</button>'),
    ('labelledby-aria-label',
     '<span id="lal" aria-label="From label">text</span><button data-t '
     'aria-labelledby="lal">x</button>'),
    ('labelledby-missing', '<button data-t aria-labelledby="nope">Fallback text</button>'),
    ('hidden-part', '<button data-t>Pay <span style="display:none">secretly</span> now</button>'),
    ('visibility-part',
     '<button data-t>Pay <span style="visibility:hidden">secretly</span> now</button>'),
    ('aria-hidden-part',
     '<button data-t>Pay <span aria-hidden="true">secretly</span> now</button>'),
    ('hidden-attr-part', '<button data-t>Pay <span hidden>secretly</span> now</button>'),
    ('title-only', '<button data-t title="Delete account"></button>'),
    ('title-and-text', '<button data-t title="Tooltip">Visible</button>'),
    ('img-alt', '<button data-t><img alt="Pay now" src="data:,"></button>'),
    ('img-empty-alt', '<button data-t><img alt="" src="data:,">Save</button>'),
    ('submit-default', '<form><input data-t type="submit"></form>'),
    ('reset-default', '<form><input data-t type="reset"></form>'),
    ('button-no-value', '<input data-t type="button">'),
    ('submit-value', '<input data-t type="submit" value="Proceed to submission">'),
    ('image-alt', '<input data-t type="image" alt="Checkout" src="data:,">'),
    ('image-no-alt', '<input data-t type="image" src="data:,">'),
    ('image-value', '<input data-t type="image" value="From value" src="data:,">'),
    ('image-title', '<input data-t type="image" title="From title" src="data:,">'),
    ('placeholder', '<input data-t type="text" placeholder="Search here">'),
    ('label-for-text', '<label for="lft">Email address</label><input data-t id="lft" type="text">'),
    ('checkbox-wrapped', '<label><input data-t type="checkbox"> Proceed to submission</label>'),
    ('checkbox-for', '<input data-t type="checkbox" id="cbf"><label for="cbf">I agree</label>'),
    ('radio-label', '<input data-t type="radio" id="rl" name="r"><label for="rl">Express</label>'),
    ('checkbox-aria', '<input data-t type="checkbox" aria-label="Accept terms">'),
    ('checkbox-title', '<input data-t type="checkbox" title="Accept">'),
    ('two-labels',
     '<label for="tl">First</label><input data-t type="checkbox" id="tl"><label '
     'for="tl">Second</label>'),
    ('fieldset', '<fieldset data-t><legend>Shipping</legend><input></fieldset>'),
    ('role-button', '<div data-t role="button">Pay now</div>'),
    ('descendant-aria-label',
     '<div data-t role="button"><span aria-label="Proceed to submission">&rarr;</span>'
     '</div>'),
    ('button-descendant-aria-label',
     '<button data-t><span aria-label="Proceed to submission">&rarr;</span></button>'),
    ('svg-title',
     '<button data-t><svg width="8" height="8"><title>Close dialog</title><rect '
     'width="8" height="8"/></svg></button>'),
    ('svg-aria-label',
     '<button data-t><svg role="img" aria-label="Settings" width="8" height="8"></svg>'
     '</button>'),
    ('svg-no-role-aria',
     '<button data-t><svg aria-label="Trash" width="8" height="8"></svg></button>'),
    ('summary', '<details><summary data-t>More details</summary>x</details>'),
    ('option', '<select><option data-t>Overnight</option><option>Slow</option></select>'),
    ('option-label-attr', '<select><option data-t label="Label attr">Text</option></select>'),
    ('menuitem', '<ul role="menu"><li data-t role="menuitem">Archive</li></ul>'),
    ('tab', '<div role="tablist"><div data-t role="tab">Billing</div></div>'),
    ('link', '<a data-t href="#x">Go to checkout</a>'),
    ('link-img', '<a data-t href="#x"><img src="data:," alt="Home"></a>'),
    ('link-title', '<a data-t href="#x" title="Profile"></a>'),
    ('before',
     '<style>.bf::before{content:"Proceed to "}</style><button data-t class="bf">'
     'submission</button>'),
    ('after',
     '<style>.af::after{content:" submission"}</style><button data-t class="af">Proceed '
     'to</button>'),
    ('before-only',
     '<style>.bo::before{content:"Proceed to submission"}</style><button data-t '
     'class="bo"></button>'),
    ('before-alt',
     '<style>.ba::before{content:"\\2192" / "Proceed"}</style><button data-t class="ba">'
     '</button>'),
    ('before-attr',
     '<style>.bat::before{content:attr(data-label)}</style><button data-t class="bat" '
     'data-label="From attr"></button>'),
    ('before-descendant',
     '<style>.bd::before{content:"Pay "}</style><button data-t><span class="bd">'
     'now</span></button>'),
    ('text-transform', '<button data-t style="text-transform:uppercase">proceed</button>'),
    ('capitalize',
     '<button data-t style="text-transform:capitalize">proceed to submission</button>'),
    ('block-children', '<button data-t><div>Proceed</div><div>to submission</div></button>'),
    ('inline-children', '<button data-t><span>Pro</span><span>ceed</span></button>'),
    ('br', '<button data-t>Proceed<br>now</button>'),
    ('whitespace', '<button data-t>   Proceed \n\n   to   submission  </button>'),
    ('nbsp', '<button data-t>Pay&nbsp;now</button>'),
    ('label-wraps-button', '<label>Outer label <button data-t>Inner</button></label>'),
    ('label-for-button',
     '<label for="lfb">Label text</label><button data-t id="lfb">Content</button>'),
    ('submit-aria-label',
     '<input data-t type="submit" value="Go" aria-label="Proceed to submission">'),
    ('empty-aria-label', '<button data-t aria-label="">Text wins</button>'),
    ('space-aria-label', '<button data-t aria-label="   ">Text wins</button>'),
    ('embedded-textbox',
     '<label for="et">Buy <input id="etin" type="text" value="5"> items</label><input '
     'data-t type="checkbox" id="et">'),
    ('embedded-in-button-content',
     '<div data-t role="button">Buy <input type="text" value="5"> items</div>'),
    ('display-contents', '<button data-t><span style="display:contents">Pay now</span></button>'),
    ('opacity-zero', '<button data-t>Pay <span style="opacity:0">now</span></button>'),
    ('role-checkbox-labelledby',
     '<span id="rcl">Remember me</span><div data-t role="checkbox" aria-checked="false" '
     'aria-labelledby="rcl"></div>'),
    ('role-link-span', '<span data-t role="link" tabindex="0">Read more</span>'),
    ('details-summary-aria',
     '<details><summary data-t aria-label="Expand">Show</summary>x</details>'),
    ('textarea-title', '<textarea data-t title="Comments"></textarea>'),
    ('img-role-button', '<img data-t role="button" alt="Zoom" src="data:,">'),
    ('inert-part', '<button data-t>Pay <span inert>secretly</span> now</button>'),
    ('select-label',
     '<label for="sl">Country</label><select data-t id="sl"><option>France</option>'
     '</select>'),
    ('aria-labelledby-visibility-hidden',
     '<span id="lvh" style="visibility:hidden">Invisible name</span><button data-t '
     'aria-labelledby="lvh">x</button>'),
    ('nested-role-button-text',
     '<div data-t role="button"><div role="presentation">Go</div><div>on</div></div>'),
    ('title-on-descendant', '<button data-t><span title="Tip">Text</span></button>'),
    ('input-button-value-and-label',
     '<label for="ibl">From label</label><input data-t id="ibl" type="button" '
     'value="From value">'),
    ('heading-in-button', '<button data-t><h3>Proceed</h3> to submission</button>'),
    ('list-in-link', '<a data-t href="#x"><ul><li>One</li><li>Two</li></ul></a>'),
    ('table-cell-text',
     '<div data-t role="button"><table><tr><td>A</td><td>B</td></tr></table></div>'),
    ('shadow-slot', '<x-slot-btn data-host>Proceed <i>now</i></x-slot-btn>'),
    ('shadow-inner', '<x-inner-btn data-host></x-inner-btn>'),
    ('shadow-host-role', '<x-host-btn data-t role="button"></x-host-btn>'),
    ('ws-inline', '<button data-t><span>Pro</span> <span>ceed</span></button>'),
    ('ws-inline-nospace', '<button data-t><span>Pro</span><span>ceed</span></button>'),
    ('ws-b', '<button data-t>Proceed <b>to</b> submission</button>'),
    ('ws-trailing', '<button data-t><span>Pro </span><span> ceed</span></button>'),
    ('ws-between-blocks', '<button data-t><div>A</div> <div>B</div></button>'),
    ('ws-inline-block',
     '<button data-t><span style="display:inline-block">A</span><span '
     'style="display:inline-block">B</span></button>'),
    ('ws-flex',
     '<div data-t role="button" style="display:flex"><span>A</span><span>B</span></div>'),
    ('ws-pre', '<button data-t style="white-space:pre">A   B</button>'),
    ('ws-slot-empty', '<x-ws data-t role="button"></x-ws>'),
    ('ws-tab-nl', '<button data-t>A\t\nB</button>'),
    ('area-img',
     '<img src="{IMG}" usemap="#m2" alt="map"><map name="m2"><area data-t shape="rect" '
     'coords="0,0,50,50" href="#a" alt="Proceed to submission"></map>'),
    ('area-nohref',
     '<img src="{IMG}" usemap="#m3" alt="map"><map name="m3"><area data-t shape="rect" '
     'coords="0,0,50,50" alt="No href"></map>'),
    ('area-aria',
     '<img src="{IMG}" usemap="#m4" alt="map"><map name="m4"><area data-t shape="rect" '
     'coords="0,0,50,50" href="#a" aria-label="Aria area" alt="alt"></map>'),
    ('img-inline-text', '<button data-t>Pay<img alt="now" src="data:,">today</button>'),
    ('img-title', '<button data-t><img title="Img title" src="data:,"></button>'),
    ('before-block',
     '<style>.bb::before{content:"Proceed";display:block}</style><button data-t '
     'class="bb">now</button>'),
    ('before-escape',
     '<style>.be::before{content:"say \\"hi\\" "}</style><button data-t class="be">'
     'there</button>'),
    ('before-counter',
     '<style>.bc{counter-reset:n 3}.bc::before{content:counter(n) ". "}</style><button '
     'data-t class="bc">Item</button>'),
    ('before-image',
     '<style>.bi::before{content:url("{IMG}")}</style><button data-t class="bi">'
     'Pic</button>'),
    ('before-quote',
     '<style>.bq::before{content:open-quote}.bq::after{content:close-quote}</style>'
     '<button data-t class="bq">Q</button>'),
    ('after-empty-alt',
     '<style>.ae::after{content:"\\2192" / ""}</style><button data-t class="ae">'
     'Next</button>'),
    ('marker-li', '<ul><li data-t role="button">Entry</li></ul>'),
    ('aria-label-on-generic-in-link', '<a data-t href="#"><div aria-label="Div label">x</div></a>'),
    ('aria-label-img-in-button',
     '<button data-t><img aria-label="Aria img" alt="alt img" src="data:,"></button>'),
    ('labelledby-shadow-id', '<x-lb data-host></x-lb>'),
    ('labelledby-button-content',
     '<span id="lbc"><button>Inner btn</button> text</span><button data-t '
     'aria-labelledby="lbc">x</button>'),
    ('labelledby-embedded-input',
     '<span id="lbe">Qty <input value="7"> items</span><button data-t '
     'aria-labelledby="lbe">x</button>'),
    ('labelledby-select',
     '<span id="lbs">Size <select><option>L</option><option selected>XL</option>'
     '</select></span><button data-t aria-labelledby="lbs">x</button>'),
    ('content-select',
     '<div data-t role="button">Size <select><option>L</option><option selected>'
     'XL</option></select></div>'),
    ('content-range', '<div data-t role="button">Vol <input type="range" value="30"></div>'),
    ('content-checkbox', '<div data-t role="button">Opt <input type="checkbox"> in</div>'),
    ('content-textarea', '<div data-t role="button">Note <textarea>hey</textarea></div>'),
    ('content-nested-button', '<div data-t role="button">Outer <button>Inner</button></div>'),
    ('content-aria-hidden-true-false',
     '<button data-t><span aria-hidden="true"><span aria-hidden="false">x</span></span>'
     'Ok</button>'),
    ('role-none-text', '<button data-t><span role="none">Plain</span></button>'),
    ('visibility-visible-in-hidden',
     '<button data-t><span style="visibility:hidden">A<span style="visibility:visible">'
     'B</span></span>C</button>'),
    ('content-visibility',
     '<button data-t>A<span style="content-visibility:hidden">B</span></button>'),
    ('input-submit-value-empty', '<input data-t type="submit" value="">'),
    ('input-reset-title', '<input data-t type="reset" title="Clear">'),
    ('input-image-alt-empty', '<input data-t type="image" alt="" src="data:,">'),
    ('button-label-and-aria',
     '<label for="bla">Lab</label><button data-t id="bla" aria-label="Aria">C</button>'),
    ('checkbox-label-hidden-part',
     '<label>Accept <span style="display:none">really</span> terms<input data-t '
     'type="checkbox"></label>'),
    ('label-nested-label-for',
     '<label for="lnf">Outer <b>bold</b></label><input data-t type="radio" id="lnf">'),
    ('label-with-before',
     '<style>.lwb::before{content:"Pre "}</style><label class="lwb" for="lwb">'
     'Label</label><input data-t type="checkbox" id="lwb">'),
    ('label-title', '<label for="lti" title="LT"></label><input data-t type="checkbox" id="lti">'),
    ('summary-with-before',
     '<style>.swb::before{content:"Open "}</style><details><summary data-t class="swb">'
     'Details</summary></details>'),
    ('option-in-listbox', '<div role="listbox"><div data-t role="option">Choice</div></div>'),
    ('menuitemcheckbox',
     '<div role="menu"><div data-t role="menuitemcheckbox" aria-checked="false">'
     'Bold</div></div>'),
    ('switch', '<button data-t role="switch" aria-checked="false">Wifi</button>'),
    ('treeitem', '<ul role="tree"><li data-t role="treeitem">Node</li></ul>'),
    ('title-whitespace', '<button data-t title="  Spaced   title "></button>'),
    ('aria-label-whitespace', '<button data-t aria-label="  Pay   now ">x</button>'),
    ('svg-title-desc', '<button data-t><svg><title>T1</title><desc>D1</desc></svg></button>'),
    ('svg-text',
     '<button data-t><svg width="40" height="20"><text x="0" y="15">Svg text</text>'
     '</svg></button>'),
    ('svg-aria-hidden',
     '<button data-t><svg aria-hidden="true"><title>Hidden</title></svg>Shown</button>'),
    ('svg-g-title', '<button data-t><svg><g><title>Group title</title></g></svg></button>'),
    ('math-like', '<button data-t><sup>2</sup>x</button>'),
    ('text-transform-lower', '<button data-t style="text-transform:lowercase">PROCEED</button>'),
    ('text-transform-child',
     '<button data-t>Go <span style="text-transform:uppercase">now</span></button>'),
    ('text-transform-before',
     '<style>.ttb::before{content:"pay ";text-transform:uppercase}</style><button '
     'data-t class="ttb">now</button>'),
    ('letter-spacing', '<button data-t style="letter-spacing:4px">Spaced</button>'),
    ('hidden-button-itself', '<button data-t style="visibility:hidden">Invisible</button>'),
    ('display-none-button', '<button data-t style="display:none">None</button>'),
    ('aria-hidden-button', '<button data-t aria-hidden="true">AH</button>'),
    ('ph-title', '<input data-t placeholder="P" title="T">'),
    ('ph-label', '<label for="phl">L</label><input data-t id="phl" placeholder="P">'),
    ('aria-ph', '<div data-t role="textbox" aria-placeholder="AP"></div>'),
    ('lb-hidden-deep',
     '<div id="lhd" style="display:none">Pay <span>now</span> <span '
     'style="visibility:hidden">v</span> <span aria-hidden="true">ah</span></div>'
     '<button data-t aria-labelledby="lhd">x</button>'),
    ('lb-aria-hidden',
     '<div id="lah" aria-hidden="true">Aria hidden ref</div><button data-t '
     'aria-labelledby="lah">x</button>'),
    ('lb-before',
     '<style>.lbb::before{content:"Pre "}</style><span id="lbb" class="lbb">ref</span>'
     '<button data-t aria-labelledby="lbb">x</button>'),
    ('lb-hidden-before',
     '<style>.lhb::before{content:"Pre "}</style><span id="lhb" class="lhb" '
     'style="display:none">ref</span><button data-t aria-labelledby="lhb">x</button>'),
    ('lb-hidden-child-aria',
     '<div id="lhca" hidden><span aria-label="AL">t</span></div><button data-t '
     'aria-labelledby="lhca">x</button>'),
    ('lb-title',
     '<span id="lbt" title="Ref title"></span><button data-t aria-labelledby="lbt">'
     'x</button>'),
    ('lb-input', '<input id="lbi" value="val"><button data-t aria-labelledby="lbi">x</button>'),
    ('lb-checkbox-label',
     '<label for="lbcl">CB label</label><input id="lbcl" type="checkbox"><button data-t '
     'aria-labelledby="lbcl">x</button>'),
    ('button-value-empty-title', '<input data-t type="button" value="" title="T">'),
    ('button-novalue-title', '<input data-t type="button" title="T">'),
    ('cap', '<button data-t style="text-transform:capitalize">e-mail o\'neil 3d x.y über</button>'),
    ('upper-sz', '<button data-t style="text-transform:uppercase">straße</button>'),
    ('link-aria-child-text', '<a data-t href="#"><span aria-label="X">y</span> z</a>'),
    ('label-wrap-aria',
     '<label>Outer <input data-t type="checkbox" aria-label="Inner aria"></label>'),
    ('rb-labelledby-desc',
     '<div data-t role="button" aria-labelledby="rbd"><span id="rbd">Desc</span> '
     'other</div>'),
    ('label-wrap-text-input', '<label>Name <input data-t type="text"></label>'),
    ('label-wrap-before-after', '<label>Accept <input data-t type="checkbox"> terms</label>'),
    ('label-nested-input-value',
     '<label>Total <input type="text" value="9"> <input data-t type="checkbox"></label>'),
    ('button-with-label-hidden',
     '<label for="bwlh" style="display:none">Hidden label</label><button data-t '
     'id="bwlh">Visible</button>'),
    ('checkbox-hidden-label',
     '<label for="chl" style="display:none">Hidden label</label><input data-t id="chl" '
     'type="checkbox">'),
    ('checkbox-hidden-self',
     '<input data-t type="checkbox" id="chs" style="opacity:0;position:absolute"><label '
     'for="chs">Styled</label>'),
    ('checkbox-display-none',
     '<input data-t type="checkbox" id="cdn" style="display:none"><label for="cdn">'
     'Styled</label>'),
    ('role-button-with-title-and-empty', '<div data-t role="button" title="Tip"> </div>'),
    ('aria-label-in-hidden-root-descendant',
     '<button data-t><span style="display:none" aria-label="X"></span>Y</button>'),
    ('img-alt-whitespace', '<button data-t><img alt="  spaced  alt " src="data:,"></button>'),
    ('nested-labelledby-in-content',
     '<span id="nlc">Ref</span><button data-t><span aria-labelledby="nlc">own</span>'
     '</button>'),
    ('textarea-in-label',
     '<label>Msg <textarea>hello</textarea> <input data-t type="checkbox"></label>'),
    ('option-selected-in-content',
     '<div data-t role="button"><select size="2"><option>A</option><option selected>'
     'B</option></select></div>'),
    ('listbox-multiple',
     '<div data-t role="button"><select multiple><option selected>A</option><option '
     'selected>B</option></select></div>'),
    ('aria-textbox-in-content',
     '<div data-t role="button">Q <span role="textbox">typed</span></div>'),
    ('aria-combobox-in-content',
     '<div data-t role="button">Q <div role="combobox" aria-label="cb">val</div></div>'),
    ('slider-in-content',
     '<div data-t role="button">S <div role="slider" aria-valuenow="4" '
     'aria-valuetext="four"></div></div>'),
    ('spin-in-content', '<div data-t role="button">N <input type="number" value="3"></div>'),
    ('color-in-content', '<div data-t role="button">C <input type="color" value="#ff0000"></div>'),
    ('date-in-content', '<div data-t role="button">D <input type="date" value="2020-01-02"></div>'),
    ('hidden-input-in-content',
     '<div data-t role="button">H <input type="hidden" value="secret"></div>'),
    ('before-on-root-hidden-vis',
     '<style>.bvh::before{content:"Pre ";visibility:hidden}</style><button data-t '
     'class="bvh">Txt</button>'),
    ('before-display-none',
     '<style>.bdn::before{content:"Pre ";display:none}</style><button data-t '
     'class="bdn">Txt</button>'),
    ('after-on-inline-child',
     '<style>.aic::after{content:"!"}</style><button data-t>Go<span class="aic"></span>'
     '</button>'),
    ('noscript-like',
     '<button data-t>A<template>T</template><script>1</script><style>x{}</style>'
     'B</button>'),
    ('iframe-in-button', '<div data-t role="button">F <iframe srcdoc="inner"></iframe></div>'),
    ('canvas-fallback', '<div data-t role="button"><canvas>Fallback</canvas></div>'),
    ('object-fallback', '<div data-t role="button"><object>Obj fallback</object></div>'),
    ('audio-in-content', '<div data-t role="button">Play <audio controls></audio></div>'),
    ('progress-in-content',
     '<div data-t role="button">P <progress value="3" max="10"></progress></div>'),
    ('meter-in-content', '<div data-t role="button">M <meter value="0.6"></meter></div>'),
    ('abbr-title', '<button data-t><abbr title="World Health">WHO</abbr></button>'),
    ('ruby', '<button data-t><ruby>漢<rt>kan</rt></ruby></button>'),
    ('bdi-dir', '<button data-t>A<bdi>B</bdi>C</button>'),
    ('wbr', '<button data-t>Pro<wbr>ceed</button>'),
    ('soft-hyphen', '<button data-t>Pro&shy;ceed</button>'),
    ('zwsp', '<button data-t>Pro&#8203;ceed</button>'),
]

# Custom elements of the shadow-DOM shapes; the controls they hold carry their own key.
SHADOW_SCRIPT = """<script>
function shadow(tag, html) {
  customElements.define(tag, class extends HTMLElement { constructor() { super();
    this.attachShadow({mode: 'open'}).innerHTML = html; } });
}
shadow('x-slot-btn', '<div role="button" data-t="shadow-slot">Step: <slot></slot></div>');
shadow('x-inner-btn', '<button data-t="shadow-inner">Proceed to <b>submission</b></button>');
shadow('x-host-btn', '<span>Shadow</span> <slot></slot> text');
shadow('x-ws', '<span>Shadow</span> <slot></slot> text');
customElements.define('x-internals', class extends HTMLElement { constructor() { super();
  const internals = this.attachInternals();
  internals.role = 'button'; internals.ariaLabel = 'Internals label';
  this.setAttribute('data-t', 'internals-role'); this.textContent = 'Content'; } });
shadow('x-lb', '<span id="in">Shadow label</span>' +
               '<button data-t="labelledby-shadow-id" aria-labelledby="in">x</button>');
</script>"""

# Controls Chrome leaves out of its tree (no name to compare with). The guard still
# names them, by the same rules, because a script can press a control nobody can see.
IGNORED_BY_CHROME = {
    "hidden-button-itself", "display-none-button", "aria-hidden-button",
    "checkbox-display-none", "area-nohref",
}

# Where the page cannot see what Chrome reads, with the reason. The test asserts that
# these still differ, so a change on either side shows up.
NOT_AT_PARITY = {
    "audio-in-content": "Chrome reads the text of the media controls' user-agent shadow "
                        "root ('Unable to play media.'), which pages cannot reach",
    "internals-role": "a custom element's ElementInternals (role, ariaLabel) are private "
                      "to the page's script; the page-side computation sees only the DOM",
    "object-fallback": "Chrome names a control holding an <object> with fallback content "
                       "'' (it reads the object, not its fallback); the page reads the "
                       "fallback text",
}


def corpus_page() -> str:
    parts = ['<!doctype html><meta charset="utf-8"><title>names</title>']
    for key, html in CORPUS:
        attr = f'data-t="{key}"'
        html = html.replace("{IMG}", IMG).replace("data-t ", attr + " ")
        parts.append('<div class="case">' + html.replace("data-t>", attr + ">") + "</div>")
    parts.append(SHADOW_SCRIPT)
    return "\n".join(parts)

# Where Chromium's own name changed between versions: Chromium 150 (Debian bookworm's
# package on some of this project's machines) names a button holding only SVG text or an
# SVG <title> '', Chromium 156 names it by that text. The page names it by the text on
# every version (a deny_clicks pattern written for what the person sees must hold), and
# the test accepts Chrome's name only as one of the two.
CHANGED_IN_CHROMIUM = {
    "svg-text": "Svg text",
    "svg-g-title": "Group title",
}

