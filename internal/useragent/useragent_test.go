package useragent

import "testing"

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, ua string
		want     Agent
		str      string
	}{
		{"Chrome on Windows", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
			Agent{Browser: "Chrome", Version: "131", OS: "Windows"}, "Chrome 131 · Windows"},
		{"Edge on Windows", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.2903.70",
			Agent{Browser: "Edge", Version: "131", OS: "Windows"}, "Edge 131 · Windows"},
		{"Firefox on Linux", "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
			Agent{Browser: "Firefox", Version: "133", OS: "Linux"}, "Firefox 133 · Linux"},
		{"Firefox on Ubuntu", "Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
			Agent{Browser: "Firefox", Version: "128", OS: "Linux"}, "Firefox 128 · Linux"},
		{"Safari on macOS", "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15",
			Agent{Browser: "Safari", Version: "18", OS: "macOS"}, "Safari 18 · macOS"},
		{"Safari on iPhone", "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
			Agent{Browser: "Safari", Version: "18", OS: "iOS", Mobile: true}, "Safari 18 · iOS"},
		{"Safari on iPad", "Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
			Agent{Browser: "Safari", Version: "17", OS: "iPadOS"}, "Safari 17 · iPadOS"},
		{"Chrome on iPhone", "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/120.0.6099.119 Mobile/15E148 Safari/604.1",
			Agent{Browser: "Chrome", Version: "120", OS: "iOS", Mobile: true}, "Chrome 120 · iOS"},
		{"Firefox on iPhone", "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/121.0 Mobile/15E148 Safari/605.1.15",
			Agent{Browser: "Firefox", Version: "121", OS: "iOS", Mobile: true}, "Firefox 121 · iOS"},
		{"Chrome on Android", "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
			Agent{Browser: "Chrome", Version: "131", OS: "Android", Mobile: true}, "Chrome 131 · Android"},
		{"Samsung Internet", "Mozilla/5.0 (Linux; Android 13; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/23.0 Chrome/115.0.0.0 Mobile Safari/537.36",
			Agent{Browser: "Samsung Internet", Version: "23", OS: "Android", Mobile: true}, "Samsung Internet 23 · Android"},
		{"Opera on Windows", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36 OPR/115.0.0.0",
			Agent{Browser: "Opera", Version: "115", OS: "Windows"}, "Opera 115 · Windows"},
		{"Yandex on Windows", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/122.0.0.0 YaBrowser/24.4.0.0 Safari/537.36",
			Agent{Browser: "Yandex Browser", Version: "24", OS: "Windows"}, "Yandex Browser 24 · Windows"},
		{"Chrome on ChromeOS", "Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
			Agent{Browser: "Chrome", Version: "131", OS: "ChromeOS"}, "Chrome 131 · ChromeOS"},
		{"Headless Chromium", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36",
			Agent{Browser: "Chrome", Version: "131", OS: "Linux"}, "Chrome 131 · Linux"},
		{"Internet Explorer 11", "Mozilla/5.0 (Windows NT 10.0; WOW64; Trident/7.0; rv:11.0) like Gecko",
			Agent{Browser: "Internet Explorer", Version: "11", OS: "Windows"}, "Internet Explorer 11 · Windows"},
		{"Legacy Edge", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/70.0.3538.102 Safari/537.36 Edge/18.19045",
			Agent{Browser: "Edge", Version: "18", OS: "Windows"}, "Edge 18 · Windows"},
		{"curl", "curl/8.5.0", Agent{}, ""},
		{"empty", "", Agent{}, ""},
		{"only a system", "SomeBot (Windows NT 10.0)", Agent{OS: "Windows"}, "Windows"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Parse(tt.ua)
			if got != tt.want {
				t.Errorf("Parse = %+v, want %+v", got, tt.want)
			}
			if s := got.String(); s != tt.str {
				t.Errorf("String = %q, want %q", s, tt.str)
			}
		})
	}
}
