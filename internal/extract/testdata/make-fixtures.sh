#!/bin/sh
# Rebuilds the binary fixtures (PDF, DOCX) from the HTML sources in src/.
# Needs Debian's chromium, libreoffice-writer-nogui, imagemagick, img2pdf
# and fonts-dejavu-core (see README.md). Run from this folder.
set -eu
cd "$(dirname "$0")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for lang in en ro ru; do
	# A PDF printed by a browser.
	chromium --headless --no-sandbox --disable-gpu --no-pdf-header-footer \
		--print-to-pdf="browser-$lang.pdf" "file://$PWD/src/doc-$lang.html" 2>/dev/null
	# A DOCX saved by LibreOffice (HTML headings become Heading 1/2 styles),
	# then a PDF exported by LibreOffice from that DOCX.
	soffice -env:UserInstallation="file://$work/lo" --headless \
		--infilter="HTML (StarWriter)" --convert-to docx:"MS Word 2007 XML" \
		--outdir "$work" "src/doc-$lang.html" >/dev/null
	cp "$work/doc-$lang.docx" "doc-$lang.docx"
	soffice -env:UserInstallation="file://$work/lo" --headless \
		--convert-to pdf --outdir "$work" "doc-$lang.docx" >/dev/null
	cp "$work/doc-$lang.pdf" "office-$lang.pdf"
done
# A 100-page PDF for the benchmark: 100 sections of Romanian and Russian
# text, one a page.
{
	echo '<!doctype html><html lang="ro"><head><meta charset="utf-8"><title>Manual</title>'
	echo '<style>section{page-break-after:always}</style></head><body>'
	for i in $(seq 1 100); do
		echo "<section><h2>Capitolul $i</h2>"
		for j in 1 2 3 4; do
			echo "<p>Brutăria livrează pâine proaspătă în fiecare dimineață; comenzile plasate înainte de prânz ajung în aceeași zi, iar țiglele de ciocolată sunt învelite în hârtie. Пекарня доставляет свежий хлеб каждое утро; заказы до полудня приходят в тот же день.</p>"
		done
		echo "</section>"
	done
	echo '</body></html>'
} >"$work/long.html"
chromium --headless --no-sandbox --disable-gpu --no-pdf-header-footer \
	--print-to-pdf="long-100.pdf" "file://$work/long.html" 2>/dev/null
# A scanned page: text rendered into a picture, wrapped in a PDF with no
# text layer.
convert -size 1240x400 xc:white -font DejaVu-Sans -pointsize 36 -fill black \
	-annotate +60+120 'Scanned page: this text is only pixels.' \
	-annotate +60+200 'Pagină scanată. Отсканированная страница.' \
	-type Grayscale -depth 8 "$work/scan.png"
img2pdf --pagesize A4 -o scanned.pdf "$work/scan.png"
