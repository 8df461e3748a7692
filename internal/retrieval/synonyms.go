package retrieval

import "strings"

// synonymGroups are words that visitors of a shop or service use for the
// same thing as the knowledge base's author ("shipping" for "delivery",
// "price" for "cost"). They are general help-desk vocabulary, not any one
// knowledge base's: a query word also matches the group's other words, a
// little weaker than itself (synonymMatch). One group a line, folded.
var synonymGroups = map[string]string{
	"en": `
		ship shipping shipment delivery deliver dispatch send arrive courier
		cost price fee charge expensive cheap
		parcel package
		track tracking trace status stage
		return exchange swap
		refund reimburse reimbursement repay
		cancel cancellation annul revoke undo
		phone telephone call hotline
		contact reach write
		email mail
		shop store showroom outlet branch
		buy purchase
		delete remove erase deactivate terminate
		account profile
		login signin logon
		register registration signup
		forgot forget remember
		reset recover restore
		warranty guarantee covered coverage
		discount promo promocode coupon voucher sale
		gift present voucher
		loyalty bonus points rewards cashback club membership
		invoice receipt bill
		company business firm
		abroad international overseas foreign worldwide
		customs duty duties import
		broken defective faulty damaged malfunction
		repair fix mend
		scratch scratched dent dented
		data information info details
		privacy personal gdpr
		share disclose
		clean cleaning wipe wash care polish maintain maintenance
		wood wooden oak pine walnut beech timber
		packaging packing box boxes cardboard carton wrapping
		recycle recycling dispose disposal reuse
		assembly assemble assembling mount install installation assembler
		hours schedule timetable open opening closing
		weekend saturday sunday holiday holidays
		fast quick quickly express urgent
		free gratis
		wrong mistake mistaken error incorrect
		change modify edit alter
		unsubscribe newsletter ads advertising marketing
		pay payment
		installment instalment installments credit
		support assistance helpdesk helpline
		add embed integrate connect plug insert`,
	"ro": `
		livrare livra transport expediere expedia trimite ajunge curier
		cost pret tarif taxa scump ieftin
		colet pachet
		urmari urmarire status stadiu awb
		returna retur schimb
		rambursare ramburs rambursa
		anula anulare renunta revoca
		telefon suna apel
		contact contacta scrie
		email mail posta
		magazin showroom filiala
		cumpara cumparatura achizitie achizitiona
		sterge elimina dezactiva
		cont profil
		autentificare logare conectare login
		inregistrare inregistra
		uitat uita aminti
		reseta resetare recupera restabili
		garantie
		reducere discount cupon promotional promo
		cadou
		fidelitate bonus puncte club
		factura bon chitanta
		firma companie
		strainatate international externe
		vama vamale
		defect defecta stricat deteriorat rupt
		repara reparatie
		zgarietura zgariat
		date informatii
		confidentialitate personale gdpr
		curata curatare intretinere ingrijire ingriji lustrui
		lemn stejar pin nuc fag
		ambalaj ambalare cutie cutii carton
		recicla reciclare refolosi
		montaj monta asamblare asambla instalare instala montator
		program orar deschis inchis deschide inchide
		weekend sambata duminica sarbatori
		rapid repede urgent express
		gratuit gratis
		gresit greseala eroare
		modifica schimba
		dezabona newsletter reclame publicitate
		rate credit
		suport asistenta ajutor
		adauga adaugare integra integrare insera include`,
	"ru": `
		доставка доставлять доставить отправка отправить отправлять пересылка прийти приходить привезти курьер
		цена стоимость тариф дорого дешево
		посылка отправление
		отследить отслеживание статус трек этап
		вернуть возврат сдать обменять обмен
		возмещение возместить компенсация
		деньги средства
		отменить отмена аннулировать отозвать остановить
		телефон звонить позвонить
		связаться связь контакт написать
		почта email имейл письмо
		магазин шоурум филиал
		купить покупка приобрести
		удалить стереть деактивировать убрать
		аккаунт профиль учетная кабинет
		войти вход логин авторизация
		регистрация зарегистрироваться
		забыл забыть помнить
		сбросить восстановить восстановление
		гарантия гарантийный
		скидка промокод купон акция
		подарок подарочный сертификат
		лояльность бонус бонусный баллы кэшбэк клуб
		счет чек квитанция фактура
		компания фирма юрлицо организация
		заграница зарубеж международный иностранный
		таможня таможенный растаможка пошлина
		сломался сломать неисправный бракованный поломка брак дефект отвалилась отвалился
		ремонт починить отремонтировать исправить
		царапина поцарапан
		данные информация
		конфиденциальность персональный
		чистить почистить протирать мыть уход ухаживать
		дерево деревянный дуб дубовый сосна массив
		упаковка коробка коробок картон
		переработка утилизация утилизировать выбросить
		сборка собрать собирать сборщик монтаж установка установить
		график режим расписание
		выходные суббота воскресенье праздники
		быстро срочно экспресс
		бесплатно бесплатный
		ошибка ошибся ошиблась неправильный случайно
		изменить поменять
		отписаться рассылка реклама
		оплата оплатить платить
		рассрочка кредит
		поддержка помощь
		добавить подключить встроить вставить интегрировать`,
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
				if m[s] == nil {
					m[s] = []string{} // in a group, even when its words share one stem
				}
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
