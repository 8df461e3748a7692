package retrieval

import "strings"

// synonymGroups are words that visitors of a shop or service use for the
// same thing as the knowledge base's author ("shipping" for "delivery",
// "price" for "cost"). They are general help-desk vocabulary, not any one
// knowledge base's: a query word also matches the group's other words, a
// little weaker than itself (synonymMatch). One group a line, folded.
var synonymGroups = map[string]string{
	"en": `
		ship shipping shipment delivery deliver dispatch send arrive
		cost price fee charge
		parcel package
		refund reimburse reimbursement
		phone telephone call
		contact reach
		email mail
		shop store
		buy purchase
		delete remove erase
		account profile
		warranty guarantee
		discount promo coupon voucher
		invoice receipt bill
		abroad international overseas foreign
		broken defective faulty damaged
		repair fix
		data information
		fast quick quickly`,
	"ro": `
		livrare livra transport expediere expedia trimite ajunge
		cost pret tarif taxa
		colet pachet
		rambursare ramburs
		telefon suna apel
		contact contacta
		email mail
		cumpara cumparatura achizitie
		sterge elimina
		cont profil
		garantie
		reducere discount cupon promotional
		factura bon chitanta
		strainatate international
		defect stricat
		repara reparatie
		date informatii
		rapid repede`,
	"ru": `
		доставка доставлять отправка отправить отправлять пересылка прийти приходить
		цена стоимость тариф
		посылка отправление
		телефон звонить позвонить
		связаться связь контакт
		почта email имейл письмо
		купить покупка приобрести
		удалить стереть
		аккаунт профиль учетная
		скидка промокод купон
		счет чек квитанция
		заграница международный
		сломался неисправный бракованный
		ремонт починить отремонтировать
		данные информация
		вернуть возврат сдать
		собрать сборка собирать
		быстро срочно`,
}

// synonymMatch is how much a synonym counts, as a share of the word itself.
const synonymMatch = 0.8

// synonyms maps, per stemmer language, a stem to the other stems of its
// groups.
var synonyms = func() map[string]map[string][]string {
	out := make(map[string]map[string][]string)
	for lang, groups := range synonymGroups {
		m := make(map[string][]string)
		for line := range strings.SplitSeq(strings.TrimSpace(groups), "\n") {
			var stems []string
			for _, w := range strings.Fields(line) {
				if s := stem(lang, Fold(w)); !contains(stems, s) {
					stems = append(stems, s)
				}
			}
			for _, s := range stems {
				for _, o := range stems {
					if o != s && !contains(m[s], o) {
						m[s] = append(m[s], o)
					}
				}
			}
		}
		out[lang] = m
	}
	return out
}()

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// synonymTypos finds the words of the synonym groups within maxEdits of a
// misspelt query word, per stemmer language.
var synonymTypos = func() map[string]*fuzzy {
	m := make(map[string]*fuzzy)
	for lang, groups := range synonymGroups {
		var words []string
		for _, w := range strings.Fields(groups) {
			if w = Fold(w); !contains(words, w) {
				words = append(words, w)
			}
		}
		m[lang] = newFuzzy(words)
	}
	return m
}()
