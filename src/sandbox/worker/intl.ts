/**
 * @module The guest's `Intl` (QuickJS has none): `Intl.NumberFormat` for en-US (decimal,
 * currency, percent; fraction digits, integer digits, grouping; format, formatToParts,
 * resolvedOptions), compiled only when a program first touches `Intl` or `toLocaleString`.
 * Anything else throws a RangeError that says what is supported. Currency symbols and minor
 * units are those of en-US in ICU (Node's own `Intl`).
 */

/** Evaluates to `{NumberFormat, ...}`: the object the prelude installs as `Intl`. */
export const INTL_SOURCE = String.raw`(function () {
'use strict';
var SYMBOLS = {"AUD":"A$","BRL":"R$","CAD":"CA$","CNY":"CN¥","EUR":"€","GBP":"£","HKD":"HK$","ILS":"₪","INR":"₹","JPY":"¥","KRW":"₩","MXN":"MX$","NZD":"NZ$","PHP":"₱","TWD":"NT$","USD":"$","VND":"₫","XAF":"FCFA","XCD":"EC$","XCG":"Cg.","XOF":"F\u202fCFA","XPF":"CFPF"};
var MINOR0 = ' AFN ALL BIF CLP COP DJF GNF HUF IDR IQD IRR ISK JPY KMF KPW KRW LAK LBP MGA MMK PKR PYG RWF SLL SOS SYP UGX VND VUV XAF XOF XPF YER ';
var MINOR3 = ' BHD JOD KWD LYD OMR TND ';
var SUPPORTED = 'codemux supports Intl.NumberFormat for the en-US locale only (styles decimal, currency, percent; minimumIntegerDigits, minimumFractionDigits, maximumFractionDigits, useGrouping, currencyDisplay symbol or code)';
function unsupported(what) { return new RangeError(what + ': ' + SUPPORTED); }
function checkLocales(locales) {
var list = locales === undefined ? [] : typeof locales === 'string' ? [locales] : locales;
for (var i = 0; i < list.length; i++) {
var l = String(list[i]);
if (l !== 'en-US' && l !== 'en') throw unsupported('Unsupported locale "' + l + '"');
}
}
function pick(o, name, allowed, fallback) {
var v = o[name];
if (v === undefined) return fallback;
v = String(v);
if (allowed.indexOf(v) < 0) throw unsupported('Unsupported ' + name + ' "' + v + '"');
return v;
}
function digitsOption(o, name, min, max, fallback) {
var v = o[name];
if (v === undefined) return fallback;
v = Number(v);
if (!(v >= min && v <= max)) throw new RangeError(name + ' value is out of range (' + min + ' to ' + max + ')');
return Math.floor(v);
}
var REJECTED = ['notation', 'signDisplay', 'minimumSignificantDigits', 'maximumSignificantDigits', 'roundingMode', 'roundingIncrement', 'roundingPriority', 'compactDisplay', 'unit', 'currencySign', 'trailingZeroDisplay'];
var DEFAULTS = { notation: 'standard', signDisplay: 'auto', roundingMode: 'halfExpand', roundingIncrement: 1, roundingPriority: 'auto', currencySign: 'standard', trailingZeroDisplay: 'auto' };
function NumberFormat(locales, options) {
if (!(this instanceof NumberFormat)) return new NumberFormat(locales, options);
checkLocales(locales);
var o = options === undefined ? {} : Object(options);
for (var r = 0; r < REJECTED.length; r++) {
var k = REJECTED[r], v = o[k];
if (v !== undefined && v !== DEFAULTS[k]) throw unsupported('Unsupported option ' + k);
}
var style = pick(o, 'style', ['decimal', 'currency', 'percent'], 'decimal');
var currency, display, minor = 2;
if (style === 'currency') {
if (o.currency === undefined) throw new TypeError('Currency code is required with currency style.');
currency = String(o.currency);
if (!/^[A-Za-z]{3}$/.test(currency)) throw new RangeError('Invalid currency code : ' + currency);
currency = currency.toUpperCase();
display = pick(o, 'currencyDisplay', ['symbol', 'code'], 'symbol');
minor = MINOR0.indexOf(' ' + currency + ' ') >= 0 ? 0 : MINOR3.indexOf(' ' + currency + ' ') >= 0 ? 3 : 2;
}
var defMin = style === 'currency' ? minor : 0;
var defMax = style === 'currency' ? minor : style === 'percent' ? 0 : 3;
var minF = digitsOption(o, 'minimumFractionDigits', 0, 100, undefined);
var maxF = digitsOption(o, 'maximumFractionDigits', 0, 100, undefined);
if (minF === undefined) minF = Math.min(defMin, maxF === undefined ? defMin : maxF);
if (maxF === undefined) maxF = Math.max(defMax, minF);
if (minF > maxF) throw new RangeError('maximumFractionDigits value is out of range.');
var grouping = o.useGrouping;
grouping = grouping === undefined || grouping === true || grouping === 'true' || grouping === 'auto' ? 'auto' : grouping === 'always' ? 'always' : grouping === 'min2' ? 'min2' : grouping === false || grouping === 'false' ? false : pick(o, 'useGrouping', ['always', 'auto', 'min2'], 'auto');
var resolved = { locale: 'en-US', numberingSystem: 'latn', style: style };
if (currency) { resolved.currency = currency; resolved.currencyDisplay = display; resolved.currencySign = 'standard'; }
resolved.minimumIntegerDigits = digitsOption(o, 'minimumIntegerDigits', 1, 21, 1);
resolved.minimumFractionDigits = minF;
resolved.maximumFractionDigits = maxF;
resolved.useGrouping = grouping;
resolved.notation = 'standard';
resolved.signDisplay = 'auto';
resolved.roundingMode = 'halfExpand';
this._r = resolved;
var self = this;
this.format = function (value) { return join(self.formatToParts(value)); };
}
function join(parts) { var s = ''; for (var i = 0; i < parts.length; i++) s += parts[i].value; return s; }
function zeros(n) { var s = ''; while (n-- > 0) s += '0'; return s; }
// The shortest decimal text of x (>= 0) as integer and fraction digits.
function decimal(x) {
var s = String(x), e = s.indexOf('e'), exp = 0;
if (e >= 0) { exp = Number(s.slice(e + 1)); s = s.slice(0, e); }
var dot = s.indexOf('.'), d = s.replace('.', ''), point = (dot < 0 ? s.length : dot) + exp;
if (point <= 0) { d = zeros(-point) + d; point = 0; }
else if (point > d.length) d += zeros(point - d.length);
return [d.slice(0, point) || '0', d.slice(point)];
}
// Half away from zero, on the decimal text (as ICU does), then trailing zeros down to minF.
function round(p, minF, maxF) {
var int = p[0], frac = p[1];
if (frac.length > maxF) {
var up = frac.charCodeAt(maxF) >= 53, keep = int + frac.slice(0, maxF);
if (up) {
var a = keep.split(''), i = a.length - 1;
for (; i >= 0; i--) { if (a[i] === '9') a[i] = '0'; else { a[i] = String(Number(a[i]) + 1); break; } }
keep = (i < 0 ? '1' : '') + a.join('');
}
int = keep.slice(0, keep.length - maxF) || '0';
frac = keep.slice(keep.length - maxF);
}
while (frac.length > minF && frac.charAt(frac.length - 1) === '0') frac = frac.slice(0, -1);
if (frac.length < minF) frac += zeros(minF - frac.length);
return [int.replace(/^0+(?=\d)/, ''), frac];
}
NumberFormat.prototype.formatToParts = function (value) {
var r = this._r, x = typeof value === 'bigint' ? Number(value) : Number(value), parts = [];
function add(type, v) { parts.push({ type: type, value: v }); }
var negative = x < 0 || (x === 0 && 1 / x < 0);
if (negative) add('minusSign', '-');
if (r.style === 'currency') {
var symbol = r.currencyDisplay === 'code' ? r.currency : SYMBOLS[r.currency] || r.currency;
add('currency', symbol);
if (/[A-Za-z.]$/.test(symbol)) add('literal', '\u00a0');
}
if (x !== x) add('nan', 'NaN');
else if (x === Infinity || x === -Infinity) add('infinity', '∞');
else {
var d = decimal(Math.abs(x));
// Percent moves the decimal point of the text, so 0.07 is 7% and never 7.000000000000001%.
if (r.style === 'percent') d = [d[0] + (d[1] + '00').slice(0, 2), d[1].slice(2)];
var p = round(d, r.minimumFractionDigits, r.maximumFractionDigits), int = p[0];
if (int.length < r.minimumIntegerDigits) int = zeros(r.minimumIntegerDigits - int.length) + int;
var g = r.useGrouping, group = g === 'always' || g === 'auto' ? int.length > 3 : g === 'min2' ? int.length > 4 : false;
var first = group ? int.length % 3 || 3 : int.length;
add('integer', int.slice(0, first));
for (var i = first; i < int.length; i += 3) { add('group', ','); add('integer', int.slice(i, i + 3)); }
if (p[1]) { add('decimal', '.'); add('fraction', p[1]); }
}
if (r.style === 'percent') add('percentSign', '%');
return parts;
};
NumberFormat.prototype.resolvedOptions = function () {
var out = {}, r = this._r;
for (var k in r) out[k] = r[k];
return out;
};
NumberFormat.supportedLocalesOf = function (locales) {
var list = locales === undefined ? [] : typeof locales === 'string' ? [locales] : locales, out = [];
for (var i = 0; i < list.length; i++) if (list[i] === 'en-US' || list[i] === 'en') out.push(String(list[i]));
return out;
};
var Intl = { NumberFormat: NumberFormat };
var absent = ['DateTimeFormat', 'Collator', 'PluralRules', 'RelativeTimeFormat', 'ListFormat', 'Segmenter', 'DisplayNames', 'Locale'];
absent.forEach(function (name) {
Intl[name] = function () { throw new RangeError('Intl.' + name + ' is not available: ' + SUPPORTED); };
});
Intl.getCanonicalLocales = function (l) { checkLocales(l); return l === undefined ? [] : typeof l === 'string' ? [l] : Array.prototype.slice.call(l); };
return Object.freeze(Intl);
})()`;
