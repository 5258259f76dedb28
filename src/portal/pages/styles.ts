import { CSS } from '../../web/styles.ts';

/**
 * The identity experience's stylesheet, widened for the portal's tables and forms. Same palette, so
 * contrast stays at least 4.5:1; tables scroll sideways on narrow screens instead of overflowing.
 */
export const PORTAL_CSS = `${CSS}
header,main{max-width:64rem}
header{flex-wrap:wrap}
nav ul{list-style:none;display:flex;flex-wrap:wrap;gap:.25rem 1rem;margin:0;padding:0}
nav a{color:#1d4ed8;font-weight:600}
nav a[aria-current=page]{text-decoration:none;border-bottom:3px solid #1d4ed8}
.spacer{flex:1}
.who{font-size:.875rem;color:#4a5361}
.inline{display:inline}
.inline button,.actions button,.actions .button{width:auto;margin-top:0}
.actions{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;margin:1rem 0}
a.button{display:inline-block;font-weight:600;border-radius:.5rem;padding:.7rem 1rem;border:1px solid #1d4ed8;background:#1d4ed8;color:#fff;text-decoration:none}
a.button.secondary{background:#fff;color:#1d4ed8}
.card+.card{margin-top:1rem}
section.card h2:first-child{margin-top:0}
h3{font-size:.95rem;margin:1rem 0 .25rem}
input[type=text],input[type=url],input[type=number],textarea{width:100%;font:inherit;padding:.6rem .75rem;border:1px solid #6b7482;border-radius:.5rem;background:#fff;color:inherit}
textarea{min-height:6rem;font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.875rem}
fieldset{border:1px solid #d5dae1;border-radius:.5rem;margin:1rem 0;padding:.5rem 1rem 1rem}
legend{font-weight:600;padding:0 .25rem}
.check{display:flex;gap:.6rem;align-items:flex-start;margin:.6rem 0}
.check input{margin-top:.3rem;width:1.1rem;height:1.1rem;flex:none}
.check label{margin:0;font-weight:400}
.check label strong{font-weight:600}
.hint{color:#4a5361;font-size:.875rem;margin:.25rem 0}
.field-error{color:#b42318;font-weight:600;margin:.25rem 0}
[aria-invalid=true]{border-color:#b42318!important;border-width:2px!important}
.summary{border:3px solid #b42318;border-radius:.5rem;padding:.75rem 1rem;margin:0 0 1rem}
.summary h2{margin:0 0 .5rem;color:#7a1a12}
.summary a{color:#b42318;font-weight:600}
.notice{border-left:4px solid #067647;background:#ecfdf3;color:#054f31;padding:.75rem 1rem;border-radius:.25rem;margin:1rem 0}
.secret{display:flex;gap:.5rem;align-items:center;flex-wrap:wrap}
.secret code{flex:1;min-width:0;word-break:break-all;background:#f3f5f8;border:1px solid #d5dae1;border-radius:.5rem;padding:.5rem .75rem;font-size:.9rem}
.secret button{width:auto;margin:0;padding:.45rem .9rem}
.table-wrap{overflow-x:auto}
table{border-collapse:collapse;width:100%;font-size:.9rem}
th,td{text-align:left;padding:.5rem;border-bottom:1px solid #d5dae1;vertical-align:top}
th{font-weight:600}
td code{word-break:break-all}
.pill{display:inline-block;font-size:.75rem;font-weight:600;border-radius:999px;padding:.05rem .5rem;border:1px solid currentColor}
.pill.basic{color:#1d4ed8}.pill.sensitive{color:#8a4b00}.pill.restricted{color:#b42318}
.pill.ok{color:#067647}.pill.bad{color:#b42318}.pill.wait{color:#8a4b00}
.filters{display:flex;flex-wrap:wrap;gap:.75rem;align-items:flex-end}
.filters>div{flex:1;min-width:10rem}
.filters button{width:auto}
.stack>*+*{margin-top:.25rem}
.block{display:block}
@media (max-width:40rem){dl{grid-template-columns:1fr}dd{margin-bottom:.5rem}}
@media (prefers-color-scheme:dark){
 nav a,.summary a{color:#a8c1ff}
 .who,.hint{color:#b7bfca}
 input[type=text],input[type=url],input[type=number],textarea{background:#14171c;border-color:#8b95a3}
 .secret code{background:#14171c;border-color:#3a414c}
 a.button{background:#3b6cf0;border-color:#3b6cf0}
 a.button.secondary{background:#1d2128;color:#a8c1ff;border-color:#a8c1ff}
 .notice{background:#0b2e1f;color:#c7f4dc}
 .field-error,.summary h2{color:#ffb4ab}
 .pill.basic{color:#a8c1ff}.pill.sensitive{color:#ffd28a}.pill.restricted,.pill.bad{color:#ffb4ab}.pill.ok{color:#8fe3b5}.pill.wait{color:#ffd28a}
 th,td,fieldset{border-color:#3a414c}
}
`;
